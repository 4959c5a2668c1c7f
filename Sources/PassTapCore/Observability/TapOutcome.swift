/// What one tap came to, in a few fixed words: the `outcome` of `status`'s last taps and the
/// `outcome` label of `passtap_taps_total`. Never a card's data.
public enum TapOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// A phone gave at least one merchant's pass (Apple VAS).
    case pass
    /// An application answered SELECT (a payment card, an access card's applet).
    case application
    /// The card spoke ISO-DEP but neither gave a pass nor selected any configured application.
    case nothing
    /// A memory card (no ISO-DEP): its identity is the whole result.
    case memoryCard = "memory_card"
    /// The card or the reader failed mid-session (removed too early, timeout, transport error).
    case error

    /// The outcome of a `read.result`. A pass wins over an application; an error wins over both,
    /// since what was read before it may be partial.
    public init(_ result: ReadResult) {
        if result.target == .memory {
            self = .memoryCard
        } else if result.error != nil {
            self = .error
        } else if result.vas?.readAPass == true {
            self = .pass
        } else if result.aid?.selected != nil {
            self = .application
        } else {
            self = .nothing
        }
    }
}
