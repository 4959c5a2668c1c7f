/// The VAS mode a terminal asks for: the low two bits of `9F26` byte 4 (vas-protocol.md §3.3),
/// which must match the ECP frame's last byte (§7.2).
///
/// | Value | Mode |
/// |---|---|
/// | 0 | VAS or payment |
/// | 1 | VAS and payment |
/// | 2 | VAS only |
///
/// (3, payment only, asks for no VAS and is not modelled.)
public enum VASMode: String, CaseIterable, Hashable, Sendable, Codable {
    /// The phone may return passes or a payment card.
    case vasOrPayment = "vas_or_payment"
    /// The phone returns passes and a payment card.
    case vasAndPayment = "vas_and_payment"
    /// Passes only; the phone returns at most one.
    case vasOnly = "vas_only"

    /// The two mode bits of `9F26` byte 4.
    public var bits: UInt8 {
        switch self {
        case .vasOrPayment: return 0x00
        case .vasAndPayment: return 0x01
        case .vasOnly: return 0x02
        }
    }
}
