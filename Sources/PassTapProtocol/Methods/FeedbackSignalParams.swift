public import PassTapCore

/// The POS's verdict on what a reader read, for `feedback.signal`.
public enum FeedbackVerdict: String, Sendable, Hashable, Codable, CaseIterable {
    /// The POS accepted it (its loyalty backend took the pass, say): `[feedback]`'s `accepted`
    /// pattern.
    case accepted
    /// The POS refused it: the `refused` pattern.
    case refused
}

/// The params of `feedback.signal`: `{"reader": "pcsc:ACS ACR122U 00 00", "verdict": "accepted"}`.
public struct FeedbackSignalParams: Sendable, Hashable, Codable {
    /// The reader to play the verdict's pattern on.
    public var reader: ReaderID
    /// The verdict.
    public var verdict: FeedbackVerdict

    /// Creates the params.
    public init(reader: ReaderID, verdict: FeedbackVerdict) {
        self.reader = reader
        self.verdict = verdict
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ParamsKey.self)
        try ParamsKey.rejectUnknown(in: container, known: ["reader", "verdict"])
        reader = try container.decode(ReaderID.self, forKey: ParamsKey("reader"))
        let name = try container.decode(String.self, forKey: ParamsKey("verdict"))
        guard let verdict = FeedbackVerdict(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: ParamsKey("verdict"), in: container, debugDescription: "verdict must be \"accepted\" or \"refused\", not \"\(name)\"")
        }
        self.verdict = verdict
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ParamsKey.self)
        try container.encode(reader, forKey: ParamsKey("reader"))
        try container.encode(verdict, forKey: ParamsKey("verdict"))
    }
}

/// The result of `feedback.signal`, once the reader took the pattern: how it was sent.
public struct FeedbackSignalResult: Sendable, Hashable, Codable {
    /// How the pattern reached the reader.
    public enum Path: String, Sendable, Hashable, Codable {
        /// Through the card still in the field (`SCardTransmit`, `FF 00 40`).
        case card
        /// Through the reader's escape code, on a direct connection (no card needed).
        case escape
    }

    /// The reader.
    public var reader: ReaderID
    /// The verdict played.
    public var verdict: FeedbackVerdict
    /// How it was sent.
    public var path: Path

    public init(reader: ReaderID, verdict: FeedbackVerdict, path: Path) {
        self.reader = reader
        self.verdict = verdict
        self.path = path
    }
}
