/// What the session engine found on one tap's card: filled step by step as the session runs.
public struct SessionOutcome: Sendable, Hashable {
    /// The SELECT-by-AID record (empty when the session ended before the AID list).
    public var aid: AIDSessionResult
    /// The Apple VAS record; `nil` when VAS is disabled.
    public var vas: VASSessionResult?
    /// The Type 4 NDEF record; `nil` when none was looked for (`[ndef]` off, or the tap found
    /// something before: ``foundSomething``).
    public var ndef: NDEFReadResult?
    /// The Google Smart Tap record; `nil` when Smart Tap is disabled or the phone is not Android.
    public var smartTap: SmartTapSessionResult?
    /// The transport failure that ended the session early, if any.
    public var error: ReadError?

    /// Creates an outcome.
    public init(
        aid: AIDSessionResult = AIDSessionResult(), vas: VASSessionResult? = nil, ndef: NDEFReadResult? = nil,
        smartTap: SmartTapSessionResult? = nil, error: ReadError? = nil
    ) {
        self.aid = aid
        self.vas = vas
        self.ndef = ndef
        self.smartTap = smartTap
        self.error = error
    }

    /// Whether either wallet read a pass in this tap.
    public var readAPass: Bool { vas?.readAPass == true || smartTap?.readAPass == true }

    /// Whether the tap already succeeded: an application was selected or a wallet gave a pass.
    /// The Type 4 NDEF read runs only when it did not, so it adds no APDU to a tap that did.
    public var foundSomething: Bool {
        aid.selected != nil || readAPass
    }
}
