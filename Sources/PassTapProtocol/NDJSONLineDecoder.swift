public import NIOCore

/// Cuts a stream of bytes into NDJSON lines, for `ByteToMessageHandler(NDJSONLineDecoder(),
/// maximumBufferSize: NDJSON.maximumLineBytes)` on both ends of the socket: each line without its
/// `\n` (nor a `\r` just before it), as a slice of the bytes received.
///
/// Our own, so the socket server needs nothing of swift-nio-extras: that package depends on
/// NIOHTTP1, which the ASan fuzz build (which fuzzes the server's method dispatcher) must not
/// compile (`scripts/test_build_graph.py`).
///
/// When the input ends inside a line, the bytes after the last newline are reported as
/// ``UnterminatedLine`` through the pipeline's error path: the server answers it with
/// `parse_error` rather than guess where the line ended.
public struct NDJSONLineDecoder: ByteToMessageDecoder {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    /// The input ended after `byteCount` bytes of a line that has no newline.
    public struct UnterminatedLine: Error, Hashable, Sendable {
        /// How many bytes the unfinished line held.
        public let byteCount: Int
    }

    /// How many readable bytes are already known to hold no newline, so each byte is looked at
    /// once however the line arrives.
    private var searched = 0

    /// A decoder with nothing buffered.
    public init() {}

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let line = nextLine(in: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while let line = nextLine(in: &buffer) {
            context.fireChannelRead(Self.wrapInboundOut(line))
        }
        if buffer.readableBytes > 0 {
            let unterminated = UnterminatedLine(byteCount: buffer.readableBytes)
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            searched = 0
            context.fireErrorCaught(unterminated)
        }
        return .needMoreData
    }

    /// Takes the next whole line out of `buffer`, or returns `nil` (and remembers how far it
    /// looked) when no newline has arrived yet.
    mutating func nextLine(in buffer: inout ByteBuffer) -> ByteBuffer? {
        let bytes = buffer.readableBytesView
        guard let newline = bytes.dropFirst(searched).firstIndex(of: UInt8(ascii: "\n")) else {
            searched = bytes.count
            return nil
        }
        searched = 0
        let endsWithReturn = newline > bytes.startIndex && bytes[newline - 1] == UInt8(ascii: "\r")
        let length = newline - bytes.startIndex - (endsWithReturn ? 1 : 0)
        let line = buffer.readSlice(length: length)
        buffer.moveReaderIndex(forwardBy: endsWithReturn ? 2 : 1)
        return line
    }
}
