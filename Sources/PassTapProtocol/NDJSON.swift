public import Foundation
public import NIOCore

/// Newline-delimited JSON, as the socket carries it: one JSON object per line, UTF-8, each line
/// ended by `\n` (a `\r` before it is tolerated on input).
///
/// Lines are split by ``NDJSONLineDecoder`` behind
/// `ByteToMessageHandler(..., maximumBufferSize: NDJSON.maximumLineBytes)` on both ends; this type
/// turns values into lines and lines into values. JSON text never contains a raw newline (they are
/// escaped inside strings), so an encoded value is always exactly one line.
public enum NDJSON {
    /// The longest line the server accepts, without its newline: 64 KiB. Longer lines get
    /// `line_too_long` and the connection is closed.
    public static let maximumLineBytes = 64 * 1024

    /// Encodes `value` as one JSON line, newline included.
    public static func encodeLine<Value: Encodable>(
        _ value: Value, allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) throws -> ByteBuffer {
        let json = try makeEncoder().encode(value)
        var buffer = allocator.buffer(capacity: json.count + 1)
        buffer.writeBytes(json)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// Decodes one line (without its newline) as `type`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: ByteBuffer) throws -> Value {
        try JSONDecoder().decode(type, from: Data(line.readableBytesView))
    }

    /// Decodes one line (without its newline) as `type`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: Data) throws -> Value {
        try JSONDecoder().decode(type, from: line)
    }

    /// The encoder PassTap uses for the wire, the one place its settings live: compact, slashes
    /// unescaped, and keys sorted, so that the same value always gives the same bytes (Foundation
    /// otherwise writes an object's keys in the order of its hash table, which changes from one
    /// process to the next).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }
}
