import Foundation
import PassTapCore

/// What the hub's publishing thread hands the outbox writer's thread: published events, bounded
/// by count and bytes, and the ids of those that did not fit. ``OutboxWriter/record(_:)`` only
/// appends here and signals; the writer's thread takes.
final class OutboxHandoff: @unchecked Sendable {
    /// One run of events that did not fit, to announce.
    struct Overflow: Sendable, Hashable {
        var count: Int
        var firstID: String
        var lastID: String
    }

    /// What the writer's thread takes at once.
    struct Taken {
        var events: [PublishedEvent]
        var overflow: Overflow?
        var outbox: Outbox?
        /// `stop()` was called and nothing is left after these.
        var finished: Bool
    }

    private let condition = NSCondition()
    // Everything below is guarded by `condition`.
    private var events: [PublishedEvent] = []
    private var head = 0
    private var bytes = 0
    private var overflow: Overflow?
    private var outbox: Outbox?
    private var wanted: Set<EventKind> = []
    private var stopping = false

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
    /// Nothing is kept before an outbox is attached or after `stop()`.
    func put(_ event: PublishedEvent) {
        let size = Self.size(of: event)
        condition.lock()
        defer { condition.unlock() }
        guard outbox != nil, !stopping else { return }
        if events.count - head >= maxEvents || bytes + size > maxBytes {
            guard wanted.contains(event.event.kind) else { return }
            let id = "\(instance):\(event.event.seq)"
            if overflow == nil {
                overflow = Overflow(count: 1, firstID: id, lastID: id)
            } else {
                overflow!.count += 1
                overflow!.lastID = id
            }
        } else {
            events.append(event)
            bytes += size
        }
        condition.signal()
    }

    /// Waits until there is something to do, then takes up to `limit` events and the overflow.
    func take(limit: Int) -> Taken {
        condition.lock()
        defer { condition.unlock() }
        while head == events.count && overflow == nil && !stopping {
            condition.wait()
        }
        let end = min(events.count, head + limit)
        let batch = Array(events[head..<end])
        head = end
        for event in batch { bytes -= Self.size(of: event) }
        if head == events.count {
            events.removeAll(keepingCapacity: events.capacity <= 4 * limit)
            head = 0
        } else if head >= 4 * limit {
            events.removeFirst(head)
            head = 0
        }
        let taken = Taken(events: batch, overflow: overflow, outbox: outbox, finished: stopping && head == events.count)
        overflow = nil
        return taken
    }

    /// Waits up to `seconds` for `stop()` (a pause before trying a failed commit again).
    func pause(seconds: Double) {
        condition.lock()
        defer { condition.unlock() }
        if !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
    }

    /// Whether `stop()` was called.
    var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Events go to `outbox` from now on.
    func attach(_ outbox: Outbox) {
        condition.lock()
        self.outbox = outbox
        condition.unlock()
    }

    /// The kinds some sink wants now (overflow counts only those).
    func setWanted(_ kinds: Set<EventKind>) {
        condition.lock()
        wanted = kinds
        condition.unlock()
    }

    /// Lets the thread commit what is handed off, then end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
