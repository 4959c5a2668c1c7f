public import ISO7816

/// What a reader learned about a card when it arrived (`card.inserted`, and the head of `read.result`).
///
/// Fields a backend cannot know are `nil` and published as JSON `null`: a PC/SC reader gives no
/// ATQA, SAK or ATS; a libnfc reader has no real ATR and publishes the PC/SC part 3 ATR built from
/// the ATS (`ContactlessATR`).
///
/// Sizes: the ATR is at most 33 bytes (pcsc-lite's `MAX_ATR_SIZE`; a libnfc ATR is built from the
/// ATS), the ATS at most 254 (ISO/IEC 14443-4's largest frame), and the UID at most
/// ``maximumUIDBytes``: a longer "UID" (on PC/SC the answer to `FF CA`, which a card can shape)
/// is not published, and ``uidNote`` says why.
public struct CardInfo: Sendable, Hashable, Codable {
    /// An ISO/IEC 14443-3 UID is 4, 7 or 10 bytes.
    public static let maximumUIDBytes = 10

    /// The answer to reset (a contactless reader synthesises one, PC/SC part 3).
    public var atr: HexBytes
    /// The UID, or `nil` when the reader does not give one or gives more than ``maximumUIDBytes``.
    @Nullable public var uid: HexBytes?
    /// Why a UID the reader gave is not published; `nil` otherwise.
    @Nullable public var uidNote: String? = nil
    /// ISO 14443-A ATQA (2 bytes); `nil` where the backend cannot see it.
    @Nullable public var atqa: HexBytes?
    /// ISO 14443-A SAK (1 byte); `nil` where the backend cannot see it.
    @Nullable public var sak: HexBytes?
    /// ISO 14443-4 ATS; `nil` where the backend cannot see it (or the card has none).
    @Nullable public var ats: HexBytes?

    private enum CodingKeys: String, CodingKey {
        case atr, uid, uidNote = "uid_note", atqa, sak, ats
    }

    /// Creates the description of a card; a `uid` over ``maximumUIDBytes`` is dropped, with a note.
    public init(atr: HexBytes, uid: HexBytes?, atqa: HexBytes? = nil, sak: HexBytes? = nil, ats: HexBytes? = nil) {
        self.atr = atr
        if let uid, uid.bytes.count > Self.maximumUIDBytes {
            self.uid = nil
            self.uidNote =
                "the reader gave a UID of \(uid.bytes.count) bytes; an ISO/IEC 14443 UID has at most \(Self.maximumUIDBytes), so it is not published"
        } else {
            self.uid = uid
        }
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
    }
}
