public import PassTapCore
import ISO7816

/// The result of `vas.read`: the tap that answered it, with its VAS and Smart Tap records.
///
/// `{"reader": "pcsc:...", "atr": "...", "uid": "...", "vas": {...}, "smarttap": null, "error": null}`:
/// `vas` and `smarttap` are the same objects as that tap's `read.result` carries (an Android
/// phone's pass is in `smarttap`); `error` is its transport error, if the card was lost
/// mid-session.
public struct VASReadResult: Sendable, Hashable {
    /// The reader the card was tapped on.
    public var reader: ReaderID
    /// The tap's result, as its `read.result` published it.
    public var result: ReadResult

    /// The `vas.read` answer for a tap's result.
    public init(reader: ReaderID, result: ReadResult) {
        self.reader = reader
        self.result = result
    }
}

extension VASReadResult: Codable {
    private enum CodingKeys: String, CodingKey { case reader, atr, uid, vas, smartTap = "smarttap", error }

    /// Writes the reader and the tap's card identity, VAS and Smart Tap records and error: a
    /// subset of its `read.result`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(reader, forKey: .reader)
        try c.encode(result.card.atr, forKey: .atr)
        try c.encode(Nullable(wrappedValue: result.card.uid), forKey: .uid)
        try c.encode(Nullable(wrappedValue: result.vas), forKey: .vas)
        try c.encode(Nullable(wrappedValue: result.smartTap), forKey: .smartTap)
        try c.encode(Nullable(wrappedValue: result.error), forKey: .error)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        reader = try c.decode(ReaderID.self, forKey: .reader)
        let card = CardInfo(atr: try c.decode(HexBytes.self, forKey: .atr), uid: try c.decodeIfPresent(HexBytes.self, forKey: .uid))
        let session = SessionOutcome(
            vas: try c.decodeIfPresent(VASSessionResult.self, forKey: .vas),
            smartTap: try c.decodeIfPresent(SmartTapSessionResult.self, forKey: .smartTap),
            error: try c.decodeIfPresent(ReadError.self, forKey: .error))
        result = ReadResult(card: card, target: .isoDep, session: session)
    }
}
