public import ForwardSettings
public import PassTapCore

/// The result of `forward.status`: the outbox and each sink's backlog.
///
/// ```json
/// {"enabled": true, "source": "till-3", "pending_bytes": 5120, "max_pending_bytes": 67108864,
///  "dropped": 0, "sinks": [{"name": "loyalty", "type": "webhook", "state": "active", ...}]}
/// ```
public struct ForwardStatusResult: Sendable, Hashable, Codable {
    /// Whether the outbox is open (at least one sink is configured, or a removed one's backlog kept).
    public var enabled: Bool
    /// This till's `source` in forwarded events.
    public var source: String
    /// Bytes of pending events in the outbox, as `max_pending_bytes` counts them.
    public var pendingBytes: Int
    /// `[forward] max_pending_bytes`.
    public var maxPendingBytes: Int
    /// Events dropped since the daemon started, for every reason.
    public var dropped: Int
    /// Every sink, configured ones in config order, then removed ones still holding a backlog.
    public var sinks: [ForwardSinkStatus]

    public init(enabled: Bool, source: String, pendingBytes: Int, maxPendingBytes: Int, dropped: Int, sinks: [ForwardSinkStatus]) {
        self.enabled = enabled
        self.source = source
        self.pendingBytes = pendingBytes
        self.maxPendingBytes = maxPendingBytes
        self.dropped = dropped
        self.sinks = sinks
    }

    private enum CodingKeys: String, CodingKey {
        case enabled, source, dropped, sinks
        case pendingBytes = "pending_bytes"
        case maxPendingBytes = "max_pending_bytes"
    }

    /// This answer as a peer without `manage` gets it: each sink's `last_error` text (which may
    /// name a database host, a role, and what a server said) is left out; its
    /// `last_error_reason` and every count stay.
    public func withoutErrorTexts() -> ForwardStatusResult {
        var result = self
        result.sinks = sinks.map { sink in
            var sink = sink
            sink.lastError = nil
            return sink
        }
        return result
    }
}

/// One sink in `forward.status`.
public struct ForwardSinkStatus: Sendable, Hashable, Codable {
    /// Whether the sink is in the config, or was removed and keeps its backlog for a while.
    public enum State: String, Sendable, Hashable, Codable {
        /// Configured and delivering (or retrying).
        case active
        /// Removed by a reload; its backlog is dropped at `drop_at` (or by `forward.drop`).
        case removed
    }

    /// The sink's `name`.
    public var name: String
    /// `webhook` or `postgres`.
    public var type: Configuration.ForwardSinkSettings.SinkType
    /// Active or removed.
    public var state: State
    /// Events still to deliver (dead ones not included).
    public var pending: Int
    /// How old the oldest pending event is, in milliseconds; `null` when nothing is pending.
    @Nullable public var oldestPendingAgeMilliseconds: Int?
    /// Events refused for good (a 4xx other than 408 and 429), waiting for `forward.retry`.
    public var dead: Int
    /// Events delivered since the daemon started.
    public var delivered: Int
    /// The last delivery error (no secret, no event data), until the next success; `null` if none,
    /// and for a peer without `manage` (``ForwardStatusResult/withoutErrorTexts()``).
    @Nullable public var lastError: String?
    /// What kind of failure the last error was, for every peer; `null` when there is none.
    @Nullable public var lastErrorReason: ForwardFailureReason?
    /// When the next attempt is due, in milliseconds from now, while retrying; `null` otherwise.
    @Nullable public var retryInMilliseconds: Int?
    /// For a removed sink, when its backlog will be dropped (RFC 3339); `null` for an active one.
    @Nullable public var dropAt: String?

    public init(
        name: String, type: Configuration.ForwardSinkSettings.SinkType, state: State, pending: Int, oldestPendingAgeMilliseconds: Int?,
        dead: Int, delivered: Int, lastError: String?, lastErrorReason: ForwardFailureReason?, retryInMilliseconds: Int?, dropAt: String?
    ) {
        self.name = name
        self.type = type
        self.state = state
        self.pending = pending
        self.oldestPendingAgeMilliseconds = oldestPendingAgeMilliseconds
        self.dead = dead
        self.delivered = delivered
        self.lastError = lastError
        self.lastErrorReason = lastErrorReason
        self.retryInMilliseconds = retryInMilliseconds
        self.dropAt = dropAt
    }

    private enum CodingKeys: String, CodingKey {
        case name, type, state, pending, dead, delivered
        case oldestPendingAgeMilliseconds = "oldest_pending_age_ms"
        case lastError = "last_error"
        case lastErrorReason = "last_error_reason"
        case retryInMilliseconds = "retry_in_ms"
        case dropAt = "drop_at"
    }
}
