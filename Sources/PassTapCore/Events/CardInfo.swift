/// What a reader learned about a card when it arrived (`card.inserted`, and the head of `read.result`).
///
/// Fields a backend cannot know are `nil` and published as JSON `null`: PC/SC gives no ATQA, SAK or ATS.
public struct CardInfo: Sendable, Hashable, Codable {
    /// The answer to reset, upper-case hex (PC/SC synthesises one for contactless cards).
    public var atr: String
    /// The UID from `FF CA 00 00 00`, or `nil` when the reader does not answer it.
    public var uid: String?
    /// ISO 14443-A ATQA, hex; `nil` where the backend cannot see it.
    public var atqa: String?
    /// ISO 14443-A SAK, hex; `nil` where the backend cannot see it.
    public var sak: String?
    /// ISO 14443-4 ATS, hex; `nil` where the backend cannot see it.
    public var ats: String?

    /// Creates the description of a card.
    public init(atr: String, uid: String?, atqa: String? = nil, sak: String? = nil, ats: String? = nil) {
        self.atr = atr
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
    }

    private enum CodingKeys: String, CodingKey { case atr, uid, atqa, sak, ats }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(atr, forKey: .atr)
        try c.encode(uid, forKey: .uid)
        try c.encode(atqa, forKey: .atqa)
        try c.encode(sak, forKey: .sak)
        try c.encode(ats, forKey: .ats)
    }
}
