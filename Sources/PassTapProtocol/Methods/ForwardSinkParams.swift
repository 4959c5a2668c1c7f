/// The params of `forward.retry` and `forward.drop`: `{"sink": "loyalty"}`.
public struct ForwardSinkParams: Sendable, Hashable, Codable {
    /// The sink's `name`, configured or removed with its backlog still kept.
    public var sink: String

    /// Creates the params.
    public init(sink: String) {
        self.sink = sink
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ParamsKey.self)
        try ParamsKey.rejectUnknown(in: container, known: ["sink"])
        sink = try container.decode(String.self, forKey: ParamsKey("sink"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ParamsKey.self)
        try container.encode(sink, forKey: ParamsKey("sink"))
    }
}

/// The result of `forward.retry`: how many dead events went back to the sink's queue (they are
/// delivered before its other pending events).
public struct ForwardRetryResult: Sendable, Hashable, Codable {
    /// The sink.
    public var sink: String
    /// How many dead events were queued again (0 when it had none).
    public var requeued: Int

    public init(sink: String, requeued: Int) {
        self.sink = sink
        self.requeued = requeued
    }
}

/// The result of `forward.drop`: how many events the sink no longer has to deliver.
public struct ForwardDropResult: Sendable, Hashable, Codable {
    /// The sink.
    public var sink: String
    /// How many events were dropped, pending and dead together (also announced with
    /// `forward.dropped`, reason `requested`, when more than 0).
    public var dropped: Int

    public init(sink: String, dropped: Int) {
        self.sink = sink
        self.dropped = dropped
    }
}
