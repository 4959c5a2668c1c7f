/// What the session engine found on one tap's card: filled step by step as the session runs.
public struct SessionOutcome: Sendable, Hashable {
    /// The SELECT-by-AID record (empty when the session ended before the AID list).
    public var aid: AIDSessionResult
    /// The Apple VAS record; `nil` when VAS is disabled.
    public var vas: VASSessionResult?
    /// The transport failure that ended the session early, if any.
    public var error: ReadError?

    /// Creates an outcome.
    public init(aid: AIDSessionResult = AIDSessionResult(), vas: VASSessionResult? = nil, error: ReadError? = nil) {
        self.aid = aid
        self.vas = vas
        self.error = error
    }
}
