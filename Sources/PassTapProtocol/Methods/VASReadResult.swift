public import PassTapCore

/// The result of `vas.read`: the tap that answered it, with its VAS record.
///
/// `{"reader": "pcsc:...", "atr": "...", "uid": "...", "vas": {...}, "error": null}`: `vas` is the
/// same object as that tap's `read.result` carries; `error` is its transport error, if the card
/// was lost mid-session.
public struct VASReadResult: Sendable, Hashable, Codable {
    /// The reader the card was tapped on.
    public var reader: ReaderID
    /// The card's ATR, hex.
    public var atr: String
    /// The card's UID, hex, when the reader gives one.
    public var uid: String?
    /// The VAS record of the tap.
    public var vas: VASSessionResult?
    /// The transport failure that cut the tap short, if any.
    public var error: ReadError?

    /// The `vas.read` answer for a tap's result.
    public init(reader: ReaderID, result: ReadResult) {
        self.reader = reader
        atr = result.atr
        uid = result.uid
        vas = result.vas
        error = result.error
    }

    private enum CodingKeys: String, CodingKey { case reader, atr, uid, vas, error }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reader, forKey: .reader)
        try c.encode(atr, forKey: .atr)
        try c.encode(uid, forKey: .uid)
        try c.encode(vas, forKey: .vas)
        try c.encode(error, forKey: .error)
    }
}
