import CZlib

/// zlib inflate (RFC 1950) with a bound on the output, for compressed record bundles. A pure CPU
/// call on the reader's thread; the output never grows past `limit`.
enum SmartTapInflater {
    /// The inflated bytes, or a malformed-response failure when `bytes` is not one complete zlib
    /// stream or inflates to more than `limit` bytes.
    static func inflate(_ bytes: [UInt8], limit: Int) throws(SmartTapFailure) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw SmartTapFailure(.malformedResponse, "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: min(max(limit, 0), max(4096, bytes.count * 4)) + 1)
        var input = bytes
        var produced = 0
        var result: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            while true {
                if produced == output.count {
                    // Grow, but never past limit + 1 (one byte more than allowed shows the excess).
                    guard output.count <= limit else { result = Z_BUF_ERROR; return }
                    output += [UInt8](repeating: 0, count: min(output.count, limit + 1 - output.count))
                }
                result = output.withUnsafeMutableBufferPointer { outputBuffer in
                    stream.next_out = outputBuffer.baseAddress! + produced
                    stream.avail_out = UInt32(outputBuffer.count - produced)
                    let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    produced = outputBuffer.count - Int(stream.avail_out)
                    return code
                }
                if result == Z_STREAM_END || produced > limit { return }
                guard result == Z_OK else { return }
                if stream.avail_in == 0, produced < output.count { return }
            }
        }
        guard produced <= limit else {
            throw SmartTapFailure(.malformedResponse, "the record bundle inflates to more than \(limit) bytes")
        }
        guard result == Z_STREAM_END else {
            throw SmartTapFailure(.malformedResponse, "the record bundle is not a complete zlib stream (zlib code \(result))")
        }
        guard stream.avail_in == 0 else {
            throw SmartTapFailure(.malformedResponse, "the record bundle has \(stream.avail_in) bytes after its zlib stream")
        }
        output.removeSubrange(produced...)
        return output
    }
}
