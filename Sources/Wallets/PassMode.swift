/// Whether a pass comes alone or with a payment: `[vas] mode`, which both wallets follow. Apple
/// VAS sends it as the low two bits of `9F26` byte 4 (`PassMode.bits`, in the VAS target); Google
/// Smart Tap as the VAS type of its POS capabilities (`SmartTapMode`, docs/smarttap.md).
///
/// | Value | Mode |
/// |---|---|
/// | 0 | VAS or payment |
/// | 1 | VAS and payment |
/// | 2 | VAS only |
///
/// (3, payment only, asks for no VAS and is not modelled.)
public enum PassMode: String, CaseIterable, Hashable, Sendable, Codable {
    /// The phone may return passes or a payment card.
    case vasOrPayment = "vas_or_payment"
    /// The phone returns passes and a payment card.
    case vasAndPayment = "vas_and_payment"
    /// Passes only; the phone returns at most one.
    case vasOnly = "vas_only"
}
