public import ForwardSettings
import Foundation
public import Logging
public import PassTapCore
import Synchronization

/// Puts the events sinks want into the ``Outbox``: one of the hub's ``PublishedEventObserver``s.
///
/// ``observe(_:)`` runs on the publishing (reader) thread under the hub's lock: it only appends
/// the event to an ``OutboxHandoff`` bounded by count and bytes, and wakes the writer's task. That
/// task, the handoff's one consumer, takes what was handed off in order and commits it, one
/// transaction per batch, on the outbox's SQLite thread. An event is stored only
/// when some sink wants its kind, with pass messages withheld, and also in full only when some
/// sink has `include_message` (and the two differ); the lines the hub encoded are stored as they
/// are, never encoded again.
///
/// When the handoff is full (the disk cannot keep up) the newest events are not kept; when the
/// outbox holds more than `[forward] max_pending_bytes`, the oldest are deleted. Both are counted
/// in ``dropped`` and announced through `announce` (`forward.dropped`, reason `outbox_full`).
/// A tap is never held up.
public final class OutboxWriter: PublishedEventObserver, Sendable {
    /// The handoff's bounds.
    public struct Limits: Sendable, Hashable {
        /// Events waiting for the writer's task at most.
        public var events: Int
        /// Bytes of their lines at most.
        public var bytes: Int
        /// Events in one transaction at most.
        public var batch: Int

        public init(events: Int, bytes: Int, batch: Int) {
            self.events = events
            self.bytes = bytes
            self.batch = batch
        }

        /// 10 000 events, 16 MiB, 256 per commit.
        public static let standard = Limits(events: 10_000, bytes: 16 << 20, batch: 256)
    }

    private let instance: String
    private let live: LiveConfiguration
    private let logger: Logger
    private let limits: Limits
    private let handoff: OutboxHandoff
    private let onCommit: @Sendable () -> Void
    private let announce: @Sendable (ForwardDropped) -> Void
    private let hostName: String
    private let droppedTotal = Atomic<Int>(0)
    /// Settled when the writer's task has ended.
    private let finished = OneShot<Void, Never>()

    /// Starts the writer's task; nothing is kept until ``attach(_:)``.
    ///
    /// The task starts here, as the thread it replaces did, so that a writer records from the
    /// moment it exists; ``stop()`` ends it and waits for it.
    ///
    /// - Parameters:
    ///   - instance: the daemon instance (`status`'s `instance`), the first half of every id.
    ///   - live: the configuration in force: `[forward]` is read at each commit.
    ///   - onCommit: called after each commit that stored events (wakes the sinks), on the
    ///     writer's task.
    ///   - announce: called with each `forward.dropped` to publish, outside the writer's locks.
    public init(
        instance: String, live: LiveConfiguration, logger: Logger, limits: Limits = .standard,
        onCommit: @escaping @Sendable () -> Void, announce: @escaping @Sendable (ForwardDropped) -> Void
    ) {
        self.instance = instance
        self.live = live
        self.logger = logger
        self.limits = limits
        self.handoff = OutboxHandoff(maxEvents: limits.events, maxBytes: limits.bytes, instance: instance)
        self.onCommit = onCommit
        self.announce = announce
        self.hostName = Configuration.Forward.hostName()
        handoff.setWanted(Self.wantedKinds(live.current.forward))
        Task { [self] in
            await run()
            finished.succeed()
        }
    }

    /// Events go to `outbox` from now on (the forwarder opens it when the first sink is configured).
    public func attach(_ outbox: Outbox) {
        handoff.setWanted(Self.wantedKinds(live.current.forward))
        handoff.attach(outbox)
    }

    /// Hands `event` to the writer's task; never blocks (see the type's description).
    public func observe(_ event: PublishedEvent) {
        handoff.put(event)
    }

    /// Events lost so far: deleted from a full outbox or not kept by a full handoff.
    public var dropped: Int { droppedTotal.load(ordering: .relaxed) }

    /// Commits what is handed off, then ends the task; events published after this are not kept.
    /// Call it before closing the outbox (the daemon stops the hub's publishers first).
    public func stop() async {
        handoff.stop()
        await finished.wait()
    }

    // MARK: The writer's task

    private func run() async {
        while true {
            let taken = await handoff.next(limit: limits.batch)
            if let outbox = taken.outbox, !taken.events.isEmpty {
                await commit(taken.events, to: outbox)
            }
            if let overflow = taken.overflow {
                report(ForwardDropped(reason: .outboxFull, sink: nil, count: overflow.count, firstID: overflow.firstID, lastID: overflow.lastID))
                logger.warning(
                    "forward: the outbox writer could not keep up; events not kept",
                    metadata: ["count": "\(overflow.count)", "first_id": "\(overflow.firstID)", "last_id": "\(overflow.lastID)"])
            }
            if taken.finished { return }
        }
    }

    /// Commits `events` (those some sink wants), trying again while the outbox fails, until `stop()`.
    private func commit(_ events: [PublishedEvent], to outbox: Outbox) async {
        let forward = live.current.forward
        handoff.setWanted(Self.wantedKinds(forward))
        let source = forward.source ?? hostName
        let rows = events.compactMap { published -> OutboxRow? in
            guard forward.wants(published.event.kind) else { return nil }
            return OutboxRow(published, instance: instance, source: source, storesMessages: forward.storesMessages)
        }
        guard !rows.isEmpty else { return }
        while true {
            do {
                let dropped = try await outbox.append(rows, maxPendingBytes: forward.maxPendingBytes)
                if let dropped {
                    report(dropped)
                    logger.warning(
                        "forward: the outbox is full ([forward] max_pending_bytes); the oldest events were dropped",
                        metadata: ["count": "\(dropped.count)", "first_id": "\(dropped.firstID)", "last_id": "\(dropped.lastID)"])
                }
                onCommit()
                return
            } catch {
                if handoff.isStopping {
                    logger.error("forward: \(error); \(rows.count) events not stored at shutdown")
                    return
                }
                logger.error("forward: \(error); trying again in 1 s")
                await handoff.pause(for: .seconds(1))
            }
        }
    }

    private func report(_ dropped: ForwardDropped) {
        droppedTotal.add(dropped.count, ordering: .relaxed)
        announce(dropped)
    }

    private static func wantedKinds(_ forward: Configuration.Forward) -> Set<EventKind> {
        Set(EventKind.allCases.filter { forward.wants($0) })
    }
}
