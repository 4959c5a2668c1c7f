/// One NDEF record (NFC Forum NDEF 1.0 §3.2): its type name format, type, ID and payload.
///
/// The header flags are not kept: MB, ME, SR and IL follow from the record's place and sizes when
/// it is encoded (``NDEFMessage/encoded()``), and a chunked record (CF) is reassembled into one
/// record when it is parsed. What the payload means is ``decoded(limits:)``.
public struct NDEFRecord: Sendable, Hashable {
    /// How to read ``type``.
    public var tnf: NDEFTypeNameFormat
    /// The TYPE field: `U` for a well-known URI, `text/plain` for a media type, ... (at most 255
    /// bytes to be encodable).
    public var type: [UInt8]
    /// The ID field, often empty (at most 255 bytes to be encodable).
    public var id: [UInt8]
    /// The PAYLOAD field.
    public var payload: [UInt8]

    /// Creates a record.
    public init(tnf: NDEFTypeNameFormat, type: [UInt8], id: [UInt8] = [], payload: [UInt8]) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }

    /// The record's payload parsed as an NDEF message one level below this record's: how a Smart
    /// Poster (RTD-SP 1.0 §3) and the Smart Tap records carry their records.
    ///
    /// - Parameter limits: the limits the message holding this record was parsed with; the nested
    ///   message is parsed with ``NDEFLimits/nested`` of them, and a caller descending further
    ///   passes that down.
    /// - Throws: ``NDEFError`` with code ``NDEFError/Code/tooDeep`` when no level is left, or the
    ///   payload's own fault (offsets count from the payload's first byte).
    public func nestedMessage(limits: NDEFLimits = .standard) throws(NDEFError) -> NDEFMessage {
        let inner = limits.nested
        guard inner.maxDepth >= 1 else {
            throw NDEFError(
                code: .tooDeep, offset: nil,
                message: "the message nested in a \(typeDescription) record goes past the nesting limit (NDEFLimits.maxDepth)")
        }
        return try NDEFMessage(parsing: payload, limits: inner)
    }

    /// The type for messages: printable ASCII as text, anything else as hex.
    var typeDescription: String {
        if !type.isEmpty, type.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "'" + String(decoding: type, as: UTF8.self) + "'"
        }
        return type.isEmpty ? "untyped" : "type " + type.ndefHex
    }
}

extension Array where Element == UInt8 {
    /// Upper-case hex, for messages.
    var ndefHex: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
