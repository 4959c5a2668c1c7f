public import PassTapCore

/// The params of `vas.read`: `{"reader": "pcsc:...", "merchants": ["pass.com.example.loyalty"], "timeout_ms": 30000}`.
public struct VASReadParams: Sendable, Hashable, Codable {
    /// How long to wait when `timeout_ms` is not given.
    public static let defaultTimeoutMilliseconds = 30_000
    /// The longest wait a client may ask for (10 minutes).
    public static let timeoutRange = 1...600_000

    /// The exact reader id.
    public var reader: ReaderID
    /// The configured pass type ids to ask for in that tap; `nil` asks every configured merchant.
    public var merchants: [String]?
    /// How long to wait for a card to arrive, in milliseconds.
    public var timeoutMilliseconds: Int

    /// Creates the params.
    public init(reader: ReaderID, merchants: [String]? = nil, timeoutMilliseconds: Int = Self.defaultTimeoutMilliseconds) {
        self.reader = reader
        self.merchants = merchants
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ParamsKey.self)
        try ParamsKey.rejectUnknown(in: container, known: ["reader", "merchants", "timeout_ms"])
        reader = try container.decode(ReaderID.self, forKey: ParamsKey("reader"))
        merchants = try container.decodeIfPresent([String].self, forKey: ParamsKey("merchants"))
        timeoutMilliseconds =
            try container.decodeIfPresent(Int.self, forKey: ParamsKey("timeout_ms")) ?? Self.defaultTimeoutMilliseconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ParamsKey.self)
        try container.encode(reader, forKey: ParamsKey("reader"))
        try container.encodeIfPresent(merchants, forKey: ParamsKey("merchants"))
        try container.encode(timeoutMilliseconds, forKey: ParamsKey("timeout_ms"))
    }
}
