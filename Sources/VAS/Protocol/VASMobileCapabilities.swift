import ISO7816

/// The phone's capabilities from tag `9F23` of the SELECT answer (vas-protocol.md §2.2).
///
/// Four bytes; bytes 1–3 are `00` and byte 4 is a bit mask (bit 0 = LSB):
///
/// | Bit | Mask | Meaning |
/// |---|---|---|
/// | 0 | `0x01` | can send VAS data in plaintext |
/// | 1 | `0x02` | can send VAS data encrypted |
/// | 2 | `0x04` | VAS may be skipped |
/// | 3 | `0x08` | VAS may be performed |
/// | 4 | `0x10` | payment may be skipped |
/// | 5 | `0x20` | payment may be performed |
public struct VASMobileCapabilities: Hashable, Sendable {
    /// One named bit of byte 4, with its stable snake_case name.
    public enum Flag: String, CaseIterable, Hashable, Sendable {
        case plaintext
        case encrypted
        case vasMayBeSkipped = "vas_may_be_skipped"
        case vasMayBePerformed = "vas_may_be_performed"
        case paymentMayBeSkipped = "payment_may_be_skipped"
        case paymentMayBePerformed = "payment_may_be_performed"

        /// The bit's mask in byte 4.
        public var mask: UInt8 {
            switch self {
            case .plaintext: return 0x01
            case .encrypted: return 0x02
            case .vasMayBeSkipped: return 0x04
            case .vasMayBePerformed: return 0x08
            case .paymentMayBeSkipped: return 0x10
            case .paymentMayBePerformed: return 0x20
            }
        }
    }

    /// The length of the `9F23` value.
    public static let length = 4

    /// The four bytes as received.
    public let bytes: [UInt8]

    /// Wraps a `9F23` value; `nil` unless it is exactly 4 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    /// Whether byte 4 has this bit set.
    public func contains(_ flag: Flag) -> Bool {
        bytes[3] & flag.mask != 0
    }

    /// The set bits, in table order.
    public var flags: [Flag] { Flag.allCases.filter(contains) }

    /// The set bits' snake_case names, in table order.
    public var bitNames: [String] { flags.map(\.rawValue) }

    /// Upper-case hex of the four bytes, for example `0000003E`.
    public var hex: String { bytes.hexString }
}
