/// A BER-TLV tag (ISO/IEC 7816-4 §5.2.2.1, EMV Book 3 Annex B1): one byte, or a first byte with
/// low bits `11111` followed by bytes whose top bit says whether another follows. Up to 4 bytes.
public struct TLVTag: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The tag's bytes as encoded.
    public let bytes: [UInt8]

    /// Wraps encoded tag bytes. Callers outside the parser should use an integer literal.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// `0x9F27` → bytes `9F 27`; `0x70` → `70`.
    public init(integerLiteral value: UInt32) {
        var bytes: [UInt8] = []
        var remaining = value
        repeat {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        } while remaining != 0
        self.bytes = bytes
    }

    /// Bit 6 of the first byte: the value is itself a sequence of TLV objects.
    public var isConstructed: Bool { (bytes.first ?? 0) & 0x20 != 0 }

    /// Upper-case hex: `9F27`.
    public var hex: String { bytes.hexString }

    public var description: String { hex }
}
