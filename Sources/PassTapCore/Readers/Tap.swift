/// A card that entered a reader's field, as a backend hands it to the reader lifecycle.
public struct Tap {
    /// What the reader learned about the card (ATR, UID, ATQA, SAK, ATS as far as it knows them).
    public var card: CardInfo
    /// Whether the card speaks ISO-DEP.
    public var target: TargetKind
    /// The exchange with the card, used only by the reader's thread; `nil` when the backend cannot
    /// exchange APDUs with this card (requests then get `not_iso_dep`).
    public var channel: (any CardChannel)?
    /// The page memory of a Type 2 tag (Ultralight, NTAG), used only by the reader's thread; `nil`
    /// for every other card, and from backends that cannot read pages.
    public var memory: (any TagMemory)?
    /// The reader's control channel (`SCardControl`), for the reader-side hooks that run after the
    /// tap's result is published (``ReaderHook``); `nil` from backends that have none.
    public var control: (any ReaderControl)?
    /// Whether the reader's thread running this tap was given up as stuck (the reader runs on a
    /// new thread now): what the tap handler publishes after that would follow the new thread's
    /// events, so it publishes nothing. Set by the reader's lifecycle.
    public var isAbandoned: @Sendable () -> Bool = { false }

    /// Creates a tap.
    public init(
        card: CardInfo, target: TargetKind, channel: (any CardChannel)?, memory: (any TagMemory)? = nil, control: (any ReaderControl)? = nil
    ) {
        self.control = control
        self.card = card
        self.target = target
        self.channel = channel
        self.memory = memory
    }
}

@available(*, unavailable)
extension Tap: Sendable {}
