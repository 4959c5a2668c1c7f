public import PassTapCore

/// The params of `events.subscribe`: `{"since": 120, "kinds": ["read.result"]}`, both optional.
public struct EventsSubscribeParams: Sendable, Hashable, Codable {
    /// The first sequence number wanted, inclusive; buffered events from it are replayed first.
    /// Absent: live events only. Above the server's `next_seq`: error -32602.
    public var since: UInt64?
    /// The exact kind names to receive; absent for all. Unknown names and an empty list are
    /// refused with -32602.
    public var kinds: [EventKind]?

    /// Creates subscription params.
    public init(since: UInt64? = nil, kinds: [EventKind]? = nil) {
        self.since = since
        self.kinds = kinds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ParamsKey.self)
        try ParamsKey.rejectUnknown(in: container, known: ["since", "kinds"])
        since = try container.decodeIfPresent(UInt64.self, forKey: ParamsKey("since"))
        guard let names = try container.decodeIfPresent([String].self, forKey: ParamsKey("kinds")) else {
            kinds = nil
            return
        }
        let known = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
        guard !names.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: ParamsKey("kinds"), in: container,
                debugDescription: "kinds is empty: omit it to receive every kind (\(known))")
        }
        kinds = try names.map { name in
            guard let kind = EventKind(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    forKey: ParamsKey("kinds"), in: container,
                    debugDescription: "unknown event kind '\(name)' (known: \(known))")
            }
            return kind
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ParamsKey.self)
        try container.encodeIfPresent(since, forKey: ParamsKey("since"))
        try container.encodeIfPresent(kinds, forKey: ParamsKey("kinds"))
    }
}
