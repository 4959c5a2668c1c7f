public import PassTapCore

/// Which pattern a reader plays (`[feedback.<outcome>]`): what the tap came to, or the POS's own
/// verdict on it, sent later with `feedback.signal`.
public enum FeedbackOutcome: String, Sendable, Hashable, CaseIterable {
    /// A phone gave a pass (either wallet).
    case pass
    /// The card answered, but gave no pass and no tag: a payment card, an empty phone.
    case noPass = "no_pass"
    /// The card or the reader failed mid-session.
    case error
    /// A tag's NDEF message was read.
    case tag
    /// The POS accepted what was read (its loyalty backend took the pass, say).
    case accepted
    /// The POS refused it.
    case refused

    /// The outcome a tap's `read.result` plays: its ``PassTapCore/TapOutcome``, with an
    /// application, a memory card and nothing all being `no_pass` (no pass, no tag).
    public init(_ result: ReadResult) {
        switch TapOutcome(result) {
        case .pass: self = .pass
        case .tag: self = .tag
        case .error: self = .error
        case .application, .nothing, .memoryCard: self = .noPass
        }
    }
}
