/// The `9F27` value of a GET VAS DATA answer, split into its fields (vas-protocol.md §5.1).
///
/// | Offset | Length | Field |
/// |---|---|---|
/// | 0 | 4 | key id: SHA-256(merchant public X)[0..<4] |
/// | 4 | 32 | X of the phone's one-time P-256 key (no prefix byte) |
/// | 36 | n + 4 + 16 | AES-256-GCM ciphertext of (timestamp ‖ message), then the 16-byte tag |
///
/// Lengths: at least 4 + 32 + 4 + 16 = 56 (empty message); at most 120 (64-byte message, §4.4).
public struct VASCryptogram: Hashable, Sendable {
    /// 4 + 32 + 4 + 16: key id, X, timestamp, tag.
    public static let minimumLength = 56
    /// 4 + 32 + 4 + 64 + 16: a 64-byte message.
    public static let maximumLength = 120
    /// Length of the GCM tag.
    public static let tagLength = 16
    /// Length of the ephemeral X coordinate.
    public static let coordinateLength = 32

    /// The whole cryptogram.
    public let bytes: [UInt8]

    /// Accepts 56...120 bytes; `nil` for an impossible length.
    public init?(bytes: [UInt8]) {
        guard (Self.minimumLength...Self.maximumLength).contains(bytes.count) else { return nil }
        self.bytes = bytes
    }

    /// Bytes 0..<4.
    public var keyID: VASKeyID { VASKeyID(validated: Array(bytes[0..<VASKeyID.length])) }

    /// Bytes 4..<36: the phone's ephemeral X.
    public var ephemeralX: [UInt8] { Array(bytes[4..<36]) }

    /// The AES-GCM ciphertext without its tag.
    public var ciphertext: [UInt8] { Array(bytes[36..<(bytes.count - Self.tagLength)]) }

    /// The last 16 bytes.
    public var tag: [UInt8] { Array(bytes[(bytes.count - Self.tagLength)...]) }
}
