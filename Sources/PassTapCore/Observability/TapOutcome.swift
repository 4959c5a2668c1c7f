/// What one tap came to, in a few fixed words: the `outcome` of `status`'s last taps and the
/// `outcome` label of `passtap_taps_total`. Never a card's data.
public enum TapOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// A phone gave a pass: at least one merchant's pass (Apple VAS), or a Google Smart Tap read
    /// that succeeded.
    case pass
    /// An application answered SELECT (a payment card, an access card's applet).
    case application
    /// A tag's NDEF message was read: a memory tag (Type 2) or an ISO-DEP Type 4 tag.
    case tag
    /// The card spoke ISO-DEP but gave no pass, selected no configured application and held no
    /// NDEF message.
    case nothing
    /// A memory card (no ISO-DEP) without an NDEF message (none on it, NDEF off, or one that does
    /// not parse): its identity is the whole result.
    case memoryCard = "memory_card"
    /// The card or the reader failed mid-session (removed too early, timeout, transport error).
    case error

    /// The outcome of a `read.result`. A pass wins over an application and an application over a
    /// tag; an error wins over all three, since what was read before it may be partial.
    public init(_ result: ReadResult) {
        let readATag = result.ndef.map { $0.problem == nil } ?? false
        if result.target == .memory {
            self = readATag ? .tag : .memoryCard
        } else if result.error != nil {
            self = .error
        } else if result.session?.readAPass == true {
            self = .pass
        } else if result.aid?.selected != nil {
            self = .application
        } else if readATag {
            self = .tag
        } else {
            self = .nothing
        }
    }
}
