public import Foundation

extension JSONRPCEnvelope {
    /// Reads one request line (without its newline; blank lines are the caller's to skip) the way
    /// the server must, and says which error to answer with (id `null`) when it cannot:
    ///
    /// | the line                                                              | answer           |
    /// |-----------------------------------------------------------------------|------------------|
    /// | not strict JSON (RFC 8259, see ``StrictJSON``): a trailing comma, a   | -32700 `parse_error` |
    /// | byte-order mark, a comment, invalid UTF-8, a bare word, cut short     |                  |
    /// | JSON, but an array (a batch, not supported)                           | -32600 `invalid_request` |
    /// | JSON, but not an object: `null`, `42`, `"status"`, `true`            | -32600 `invalid_request` |
    /// | a JSON object                                                         | its envelope     |
    ///
    /// JSON-RPC 2.0, section 5.1: -32700 "Invalid JSON was received by the server", -32600 "The
    /// JSON sent is not a valid Request object". The envelope's own members (`jsonrpc`, `method`)
    /// are checked afterwards by ``requestMethod()``.
    public static func decodeRequestLine(_ line: Data) -> Result<JSONRPCEnvelope, JSONRPCError> {
        do {
            try StrictJSON.validate(line)
        } catch {
            return .failure(.parseError(error.description))
        }
        switch line.first(where: { !Self.isJSONWhitespace($0) }) {
        case UInt8(ascii: "{"):
            break
        case UInt8(ascii: "["):
            return .failure(.invalidRequest("batches are not supported"))
        default:
            return .failure(.invalidRequest("the line is not a JSON object"))
        }
        do {
            return .success(try NDJSON.decode(JSONRPCEnvelope.self, from: line))
        } catch {
            // Strict JSON that Foundation still cannot read (a number it cannot represent, say).
            return .failure(.parseError(Self.decodingErrorDetail(error)))
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func decodingErrorDetail(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError { return "\(underlying)" }
            return context.debugDescription
        }
        return "\(error)"
    }
}
