/// What `forward.dropped` says: which pending events the forwarding outbox gave up on, and why.
///
/// Ids are the forwarded events' stable ids (`instance:seq`, see `docs/fleet.md`); the range is
/// in outbox order, so `first_id` and `last_id` may come from different daemon instances.
public struct ForwardDropped: Sendable, Hashable, Codable {
    /// Why the events were dropped.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The outbox reached `[forward] max_pending_bytes`: the oldest pending events went.
        case outboxFull = "outbox_full"
        /// A sink removed from the config kept its backlog for `removed_sink_keep_hours`.
        case sinkRemoved = "sink_removed"
        /// `forward.drop` (`passtap forward drop NAME`) asked.
        case requested = "requested"
    }

    /// Why.
    public var reason: Reason
    /// The sink whose backlog went; `nil` when the outbox dropped events for every sink (full).
    @Nullable public var sink: String?
    /// How many events went.
    public var count: Int
    /// The id of the first (oldest) event dropped.
    public var firstID: String
    /// The id of the last (newest) event dropped.
    public var lastID: String

    /// Creates the payload.
    public init(reason: Reason, sink: String?, count: Int, firstID: String, lastID: String) {
        self.reason = reason
        self.sink = sink
        self.count = count
        self.firstID = firstID
        self.lastID = lastID
    }

    private enum CodingKeys: String, CodingKey {
        case reason, sink, count
        case firstID = "first_id"
        case lastID = "last_id"
    }
}
