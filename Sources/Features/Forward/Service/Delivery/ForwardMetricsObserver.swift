public import PassTapCore

/// What the forwarder tells the metrics (``ForwardMetrics`` implements it; see docs/operations.md,
/// "Metrics"). Calls come from the sinks' loops and the forwarder's timers, on any task; each
/// must only record and return.
public protocol ForwardMetricsObserver: Sendable {
    /// Every sink the outbox knows and its backlog, after a batch and every few seconds. A sink
    /// missing from `backlogs` is gone (forgotten by the outbox).
    func forwardBacklogs(_ backlogs: [ForwardBacklog])
    /// `sink` delivered events; `latencies` holds, for each, the time from its publication to
    /// its delivery.
    func forwardDelivered(sink: String, latencies: [Duration])
    /// A delivery to `sink` failed and will be tried again.
    func forwardRetried(sink: String)
    /// An event went to `sink`'s dead list.
    func forwardDead(sink: String)
    /// `count` events were dropped, for `reason` (each `forward.dropped`).
    func forwardDropped(reason: ForwardDropped.Reason, count: Int)
}

/// One sink's backlog, as the metrics show it.
public struct ForwardBacklog: Sendable, Hashable {
    /// The sink's name.
    public var sink: String
    /// Events still to deliver (dead ones not included).
    public var pending: Int
    /// How long the oldest of them has waited; zero when nothing is pending.
    public var oldestPendingAge: Duration

    public init(sink: String, pending: Int, oldestPendingAge: Duration) {
        self.sink = sink
        self.pending = pending
        self.oldestPendingAge = oldestPendingAge
    }
}
