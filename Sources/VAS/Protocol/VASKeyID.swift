import Crypto
import ISO7816

/// The 4-byte key id that starts every cryptogram: the first 4 bytes of SHA-256 of the merchant
/// public key's 32-byte X coordinate (vas-protocol.md §5.1).
public struct VASKeyID: Hashable, Sendable, CustomStringConvertible {
    /// Length in bytes.
    public static let length = 4

    /// The four bytes.
    public let bytes: [UInt8]

    /// Wraps 4 bytes taken from a cryptogram; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    /// Four bytes the caller has already measured.
    init(validated bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The id of the public key whose X coordinate is `x` (32 bytes, big-endian).
    public init(publicKeyX x: [UInt8]) {
        self.bytes = Array(SHA256.hash(data: x).prefix(Self.length))
    }

    /// Upper-case hex, for example `C0B77375`.
    public var hex: String { bytes.hexString }

    public var description: String { hex }
}

extension VASKeyID: Codable {
    /// Reads the id's hex form (`"C0B77375"`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let bytes = try? [UInt8](hex: try container.decode(String.self)), bytes.count == Self.length else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a VAS key id is 4 bytes of hex")
        }
        self.init(validated: bytes)
    }

    /// Writes the id as upper-case hex.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
