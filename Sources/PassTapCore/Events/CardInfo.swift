public import ISO7816

/// What a reader learned about a card when it arrived (`card.inserted`, and the head of `read.result`).
///
/// Fields a backend cannot know are `nil` and published as JSON `null`: a PC/SC reader gives no
/// ATQA, SAK or ATS; a libnfc reader has no real ATR and publishes the PC/SC part 3 ATR built from
/// the ATS (`ContactlessATR`).
public struct CardInfo: Sendable, Hashable, Codable {
    /// The answer to reset (a contactless reader synthesises one, PC/SC part 3).
    public var atr: HexBytes
    /// The UID, or `nil` when the reader does not give one.
    @Nullable public var uid: HexBytes?
    /// ISO 14443-A ATQA (2 bytes); `nil` where the backend cannot see it.
    @Nullable public var atqa: HexBytes?
    /// ISO 14443-A SAK (1 byte); `nil` where the backend cannot see it.
    @Nullable public var sak: HexBytes?
    /// ISO 14443-4 ATS; `nil` where the backend cannot see it (or the card has none).
    @Nullable public var ats: HexBytes?

    /// Creates the description of a card.
    public init(atr: HexBytes, uid: HexBytes?, atqa: HexBytes? = nil, sak: HexBytes? = nil, ats: HexBytes? = nil) {
        self.atr = atr
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
    }
}
