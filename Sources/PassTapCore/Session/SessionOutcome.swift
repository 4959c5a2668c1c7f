/// What the session engine produced on one tap, before the card's identity is added.
public struct SessionOutcome: Sendable, Hashable {
    /// The SELECT-by-AID record.
    public var aid: AIDSessionResult
    /// The Apple VAS record; `nil` when VAS is disabled.
    public var vas: VASSessionResult?
    /// The transport failure that ended the session early, if any.
    public var error: ReadError?

    /// Creates an outcome.
    public init(aid: AIDSessionResult, vas: VASSessionResult? = nil, error: ReadError?) {
        self.aid = aid
        self.vas = vas
        self.error = error
    }
}
