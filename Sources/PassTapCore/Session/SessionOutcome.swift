/// What the session engine found on one tap's card: filled step by step as the session runs.
public struct SessionOutcome: Sendable, Hashable {
    /// The SELECT-by-AID record (empty when the session ended before the AID list).
    public var aid: AIDSessionResult
    /// The Apple VAS record; `nil` when VAS is disabled.
    public var vas: VASSessionResult?
    /// The Type 4 NDEF record; `nil` when none was looked for (`[ndef]` off, or the tap found
    /// something before: ``foundSomething``).
    public var ndef: NDEFReadResult?
    /// The transport failure that ended the session early, if any.
    public var error: ReadError?

    /// Creates an outcome.
    public init(aid: AIDSessionResult = AIDSessionResult(), vas: VASSessionResult? = nil, ndef: NDEFReadResult? = nil, error: ReadError? = nil) {
        self.aid = aid
        self.vas = vas
        self.ndef = ndef
        self.error = error
    }

    /// Whether the tap already succeeded: an application was selected or a wallet gave a pass.
    /// The Type 4 NDEF read runs only when it did not, so it adds no APDU to a tap that did.
    public var foundSomething: Bool {
        aid.selected != nil || vas?.readAPass == true
    }
}
