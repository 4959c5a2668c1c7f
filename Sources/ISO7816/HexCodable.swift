/// ISO 7816 values on the wire: upper-case hex strings (`"A0000000041010"`, `"9000"`); any case,
/// spaces allowed, when read.
extension SingleValueDecodingContainer {
    /// The bytes of a hex string member, or a `dataCorrupted` error that says what was expected.
    func decodeHex(_ what: String) throws -> [UInt8] {
        let text = try decode(String.self)
        do {
            return try [UInt8](hex: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: self, debugDescription: "not \(what): \(error)")
        }
    }
}

extension AID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try AID(bytes: try container.decodeHex("an AID"))
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an AID: \(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

extension StatusWord: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let bytes = try container.decodeHex("a status word")
        guard bytes.count == 2 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a status word is 2 bytes, not \(bytes.count)")
        }
        self.init(sw1: bytes[0], sw2: bytes[1])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// Bytes that travel as one upper-case hex string (an ATR, a UID, a message), not as a JSON array
/// of numbers.
public struct HexBytes: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The bytes.
    public var bytes: [UInt8]

    /// Wraps bytes.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public init(arrayLiteral elements: UInt8...) { bytes = elements }

    /// Upper-case hex.
    public var hex: String { bytes.hexString }

    public var description: String { hex }

    public init(from decoder: any Decoder) throws {
        bytes = try decoder.singleValueContainer().decodeHex("hex")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

extension HexBytes: ExpressibleByStringLiteral {
    /// Bytes written as a hex literal (`"04A1B2C3"`), for fixed values and tests. A literal that
    /// is not hex is a programming error.
    public init(stringLiteral hex: String) {
        guard let bytes = try? [UInt8](hex: hex) else { preconditionFailure("\"\(hex)\" is not hex") }
        self.bytes = bytes
    }
}

extension AID: ExpressibleByStringLiteral {
    /// An AID written as a hex literal (`"A0000000041010"`), for fixed values and tests. A literal
    /// that is not a valid AID is a programming error.
    public init(stringLiteral hex: String) {
        guard let aid = try? AID(hex: hex) else { preconditionFailure("\"\(hex)\" is not an AID") }
        self = aid
    }
}

extension StatusWord: ExpressibleByStringLiteral {
    /// A status word written as a hex literal (`"6A82"`), for fixed values and tests. A literal
    /// that is not 2 bytes of hex is a programming error.
    public init(stringLiteral hex: String) {
        guard let bytes = try? [UInt8](hex: hex), bytes.count == 2 else { preconditionFailure("\"\(hex)\" is not a status word") }
        self.init(sw1: bytes[0], sw2: bytes[1])
    }
}
