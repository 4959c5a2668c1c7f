import NIOCore
import PostgresNIO

/// An event's JSON object sent as a `jsonb` parameter in `jsonb`'s binary format (a version byte,
/// 1, then the JSON text): the stored bytes (``OutboxItem/event``, encoded once when the event was
/// published) go out as they are, without a decode or a second encoding.
///
/// One change is made, and it is the one place the event's JSON is edited as bytes, on purpose:
/// PostgreSQL's `jsonb` refuses the escape `\u0000` (a NUL in a string, SQLSTATE 22P05: `jsonb`
/// stores strings as `text`, which cannot hold NUL), although JSON allows it and a hostile pass
/// message could carry it. Refused, that event would hold the sink back for ever, so each
/// `\u0000` inside a string becomes `\ufffd` (the replacement character), as `docs/fleet.md`
/// says. It stays a rewrite of this one escape, not a second encoding: every other sink (the
/// socket, the WebSocket, the webhook, whose body is signed) gets the event's bytes unchanged, and
/// only PostgreSQL's copy differs, in the escapes it cannot store.
struct PostgresJSONB: PostgresNonThrowingEncodable, Sendable {
    /// The JSON text.
    let json: ByteBuffer

    static var psqlType: PostgresDataType { .jsonb }
    static var psqlFormat: PostgresFormat { .binary }

    /// `jsonb`'s binary format version.
    static let version: UInt8 = 1

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Self.version)
        Self.writeReplacingNulEscapes(json, to: &buffer)
    }

    /// Writes `json` to `buffer`, each `\u0000` escape in a string replaced by `\ufffd`; an
    /// escaped backslash followed by `u0000` (the text `\\u0000`) is left alone.
    static func writeReplacingNulEscapes(_ json: ByteBuffer, to buffer: inout ByteBuffer) {
        let bytes = json.readableBytesView
        guard bytes.contains(UInt8(ascii: "\\")) else {
            buffer.writeImmutableBuffer(json)
            return
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), bytes.index(after: index) < bytes.endIndex else {
                buffer.writeInteger(byte)
                index = bytes.index(after: index)
                continue
            }
            // An escape: a backslash and the character it escapes, taken together.
            let escaped = bytes.index(after: index)
            let nulEnd = bytes.index(index, offsetBy: 6, limitedBy: bytes.endIndex)
            if let nulEnd, bytes[index..<nulEnd].elementsEqual(nulEscape) {
                buffer.writeBytes(replacementEscape)
                index = nulEnd
            } else {
                buffer.writeInteger(byte)
                buffer.writeInteger(bytes[escaped])
                index = bytes.index(after: escaped)
            }
        }
    }

    private static let nulEscape = Array(#"\u0000"#.utf8)
    private static let replacementEscape = Array(#"\ufffd"#.utf8)
}
