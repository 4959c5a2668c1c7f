public import ForwardSettings
public import Foundation
public import PassTapCore

/// The outbox as the forwarder uses it: each sink's cursor, batches, dead list and backlog.
/// (Events go in through the ``OutboxWriter``, one of the hub's observers, on its own task.)
///
/// The SQLite outbox implements it (`Outbox`), and the forwarder's tests use an in-memory one.
/// Every call runs its SQL on the outbox's own thread, never on the caller's.
public protocol OutboxStorage: Sendable {
    /// Makes `active` the configured sinks. A sink new to the outbox starts after the newest
    /// event stored now (it gets the events published from now on). A sink missing from
    /// `active` is marked removed at `now` and keeps its backlog; a removed sink named again is
    /// active again with its old cursor.
    func setSinks(_ active: [Configuration.ForwardSinkSettings], now: Date) async throws(OutboxError)

    /// Up to `limit` events `sink` has still to deliver, oldest first: its dead events queued
    /// again by ``requeueDead(sink:)`` first, then those after its cursor whose kind it takes.
    /// Each carries the event in the sink's view: the full event when `includeMessage` and the
    /// outbox stored it, else the one with pass messages withheld.
    func nextBatch(for sink: String, kinds: Set<EventKind>, limit: Int, includeMessage: Bool) async throws(OutboxError) -> [OutboxItem]

    /// `sink` delivered these events (their row ids, from a batch ``nextBatch`` gave): its cursor
    /// moves past them; rows no sink still needs are deleted.
    func markDelivered(sink: String, rowIDs: [Int64]) async throws(OutboxError)

    /// `sink`'s receiver refused this event for good: it moves to the sink's dead list (the
    /// cursor moves past it), with `error`.
    func markDead(sink: String, rowID: Int64, error: String) async throws(OutboxError)

    /// Queues `sink`'s dead events again; returns how many. Throws ``OutboxError/unknownSink(_:)``
    /// for a name the outbox does not have.
    func requeueDead(sink: String) async throws(OutboxError) -> Int

    /// Drops everything `sink` has still to deliver, dead events included; a removed sink is
    /// forgotten. Returns what went (`nil` when nothing was pending), to announce.
    func dropBacklog(sink: String) async throws(OutboxError) -> ForwardDropped?

    /// Drops the backlogs of sinks removed before `cutoff` and forgets them; returns what went,
    /// one entry per sink that still had events.
    func expireRemovedSinks(removedBefore cutoff: Date) async throws(OutboxError) -> [ForwardDropped]

    /// Each sink's backlog and the outbox's size, for `forward.status` and the metrics.
    func status() async throws(OutboxError) -> OutboxStatus
}

/// What ``OutboxStorage/status()`` reports.
public struct OutboxStatus: Sendable, Hashable {
    /// One sink's backlog.
    public struct Sink: Sendable, Hashable {
        public var name: String
        public var type: Configuration.ForwardSinkSettings.SinkType
        /// When the sink was removed from the config; `nil` while it is configured.
        public var removedAt: Date?
        /// Events still to deliver (dead ones not included).
        public var pending: Int
        /// When the oldest of them was published; `nil` when nothing is pending.
        public var oldestPending: Date?
        /// Events on its dead list.
        public var dead: Int

        public init(name: String, type: Configuration.ForwardSinkSettings.SinkType, removedAt: Date?, pending: Int, oldestPending: Date?, dead: Int) {
            self.name = name
            self.type = type
            self.removedAt = removedAt
            self.pending = pending
            self.oldestPending = oldestPending
            self.dead = dead
        }
    }

    /// Every sink the outbox knows, configured ones in the order ``OutboxStorage/setSinks(_:now:)``
    /// gave, then removed ones.
    public var sinks: [Sink]
    /// The bytes of the stored events, as `max_pending_bytes` counts them.
    public var pendingBytes: Int

    public init(sinks: [Sink], pendingBytes: Int) {
        self.sinks = sinks
        self.pendingBytes = pendingBytes
    }
}

/// Why the outbox could not do what was asked.
public enum OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No configured or kept sink has this name.
    case unknownSink(String)
    /// SQLite failed (the file, the disk, a lock): what it said, with the outbox's path.
    case storage(String)

    public var description: String {
        switch self {
        case .unknownSink(let name): return "no sink is named \"\(name)\""
        case .storage(let message): return message
        }
    }
}
