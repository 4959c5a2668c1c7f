import PassTapCore
import Synchronization

/// What the hub's publishing thread hands the outbox writer's task: published events, bounded by
/// count and bytes, and the ids of those that did not fit. ``put(_:)`` only appends (or counts an
/// overflow) under a `Mutex` and signals a ``Wakeup``; it never waits, so a tap is never held up.
/// The writer's task, its one consumer, takes in order with ``next(limit:)``.
///
/// Neither `AsyncStream` (it bounds a count, not bytes) nor swift-async-algorithms'
/// `AsyncChannel` (its producer waits) fits, hence this type.
final class OutboxHandoff: Sendable {
    /// One run of events that did not fit, to announce.
    struct Overflow: Sendable, Hashable {
        var count: Int
        var firstID: String
        var lastID: String
    }

    /// What the writer's task takes at once.
    struct Taken: Sendable {
        var events: [PublishedEvent]
        var overflow: Overflow?
        var outbox: Outbox?
        /// `stop()` was called and nothing is left after these.
        var finished: Bool
    }

    fileprivate struct State {
        var events: [PublishedEvent] = []
        var head = 0
        var bytes = 0
        var overflow: Overflow?
        var outbox: Outbox?
        var wanted: Set<EventKind> = []
        var stopping = false

        /// Whether the writer's task has something to take.
        var hasWork: Bool { head < events.count || overflow != nil || stopping }
    }

    private let state = Mutex(State())
    /// Signalled when there is something to take (or `stop()` was called).
    private let work = Wakeup()
    /// Signalled by `stop()`: ends a pause.
    private let stopped = Wakeup()

    let maxEvents: Int
    let maxBytes: Int
    let instance: String

    init(maxEvents: Int, maxBytes: Int, instance: String) {
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1, maxBytes)
        self.instance = instance
    }

    /// The bytes `event` holds in the handoff (its lines are shared with the hub's ring).
    static func size(of event: PublishedEvent) -> Int {
        event.line(for: .full).byteCount + event.line(for: .passesWithheld).byteCount
    }

    /// Appends `event`, or counts it as overflow when the handoff is full and a sink wants it.
    /// Nothing is kept before an outbox is attached or after `stop()`. Never waits.
    func put(_ event: PublishedEvent) {
        let size = Self.size(of: event)
        let handedOff = state.withLock { state -> Bool in
            guard state.outbox != nil, !state.stopping else { return false }
            if state.events.count - state.head >= maxEvents || state.bytes + size > maxBytes {
                guard state.wanted.contains(event.event.kind) else { return false }
                let id = "\(instance):\(event.event.seq)"
                if state.overflow == nil {
                    state.overflow = Overflow(count: 1, firstID: id, lastID: id)
                } else {
                    state.overflow!.count += 1
                    state.overflow!.lastID = id
                }
            } else {
                state.events.append(event)
                state.bytes += size
            }
            return true
        }
        if handedOff { work.signal() }
    }

    /// Waits until there is something to do, then takes up to `limit` events and the overflow.
    /// Called by one task at a time (the writer's).
    func next(limit: Int) async -> Taken {
        while true {
            if let taken = state.withLock({ $0.take(limit: limit) }) { return taken }
            await work.wait()
        }
    }

    /// Returns after `duration`, or sooner once `stop()` is called (a pause before trying a
    /// failed commit again).
    func pause(for duration: Duration) async {
        guard !isStopping else { return }
        await stopped.wait(upTo: duration, on: .system)
    }

    /// Whether `stop()` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Events go to `outbox` from now on.
    func attach(_ outbox: Outbox) {
        state.withLock { $0.outbox = outbox }
    }

    /// The kinds some sink wants now (overflow counts only those).
    func setWanted(_ kinds: Set<EventKind>) {
        state.withLock { $0.wanted = kinds }
    }

    /// Lets the writer's task commit what is handed off, then end.
    func stop() {
        state.withLock { $0.stopping = true }
        work.signal()
        stopped.signal()
    }
}

extension OutboxHandoff.State {
    /// Up to `limit` events and the overflow, or `nil` when there is nothing to do yet.
    fileprivate mutating func take(limit: Int) -> OutboxHandoff.Taken? {
        guard hasWork else { return nil }
        let end = min(events.count, head + limit)
        let batch = Array(events[head..<end])
        head = end
        for event in batch { bytes -= OutboxHandoff.size(of: event) }
        if head == events.count {
            events.removeAll(keepingCapacity: events.capacity <= 4 * limit)
            head = 0
        } else if head >= 4 * limit {
            events.removeFirst(head)
            head = 0
        }
        let taken = OutboxHandoff.Taken(events: batch, overflow: overflow, outbox: outbox, finished: stopping && head == events.count)
        overflow = nil
        return taken
    }
}
