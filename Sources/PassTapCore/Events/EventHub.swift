public import Foundation
import Synchronization

/// The daemon's event bus: numbers every event, keeps the most recent ones for replay, and fans
/// them out to subscribers without ever waiting for one.
///
/// ``publish(_:reader:payload:)`` is synchronous and may be called from any thread (reader
/// threads call it directly). Each subscriber has its own bounded queue: a subscriber that does
/// not keep up loses events and is told so with one
/// ``SubscriptionItem/dropped(count:firstSeq:lastSeq:)``, while publishers and other subscribers
/// carry on. One lock guards numbering, the ring and the subscriber table, so a subscription's
/// replay and its live stream meet with no gap and no duplicate.
///
/// Each event is stored and delivered as one ``PublishedEvent``, shared by the ring and every
/// queue it reaches, which keeps its encoded lines: the server encodes an event once per
/// ``EventView`` for all its subscribers, replays included.
///
/// The replay buffer is bounded twice: at most ``capacity`` events (`[events] buffer`) and at most
/// ``maximumBytes`` bytes (`[events] buffer_bytes`), each event counted at the length of its
/// `event` line (``Event/lineSize(kind:reader:payload:)``, measured before the lock is taken).
/// The oldest events are evicted while either bound is exceeded.
public final class EventHub: Sendable {
    private struct State {
        var ring: EventHubRing
        var nextSeq: UInt64 = 1
        var nextSubscriberID: UInt64 = 0
        var subscribers: [UInt64: SubscriberQueue] = [:]
    }

    /// How many recent events are kept for replay (`[events] buffer`).
    public var capacity: Int { state.withLock { $0.ring.capacity } }
    /// How many bytes of events are kept for replay (`[events] buffer_bytes`).
    public var maximumBytes: Int { state.withLock { $0.ring.maximumBytes } }
    private let clock: @Sendable () -> Date
    private let state: Mutex<State>

    /// Creates a hub that keeps the last `capacity` events (at least 1), as long as they add up
    /// to at most `maximumBytes` (at least 1; the newest event is kept whatever its size).
    /// - Parameter clock: where event times come from; tests may pin it.
    public init(capacity: Int = 1024, maximumBytes: Int = 4 * 1024 * 1024, clock: @escaping @Sendable () -> Date = { Date() }) {
        precondition(capacity >= 1, "EventHub capacity must be at least 1 (config [events] buffer)")
        precondition(maximumBytes >= 1, "EventHub maximumBytes must be at least 1 (config [events] buffer_bytes)")
        self.clock = clock
        self.state = Mutex(State(ring: EventHubRing(capacity: capacity, maximumBytes: maximumBytes)))
    }

    /// How many events the replay buffer holds now.
    public var bufferedCount: Int { state.withLock { $0.ring.count } }

    /// How many bytes the replay buffer holds now, as ``maximumBytes`` counts them.
    public var bufferedBytes: Int { state.withLock { $0.ring.bytes } }

    /// The sequence number the next published event will get.
    public var nextSeq: UInt64 { state.withLock { $0.nextSeq } }

    /// The oldest sequence number still held for replay (``nextSeq`` when nothing is held).
    public var oldestSeq: UInt64 { state.withLock { $0.ring.oldestSeq ?? $0.nextSeq } }

    /// How many subscriptions are live.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Numbers, timestamps, stores and fans out one event. Never blocks on a subscriber.
    /// A sink that publishes here, for backends and the tap coordinator.
    public var sink: EventSink {
        EventSink { kind, reader, payload in _ = self.publish(kind, reader: reader, payload: payload) }
    }

    @discardableResult
    public func publish(_ kind: EventKind, reader: ReaderID?, payload: EventPayload) -> Event {
        let size = Event.lineSize(kind: kind, reader: reader, payload: payload)
        let (event, wakeups) = state.withLock { state -> (Event, [SubscriberQueue.Wakeup]) in
            let event = Event(seq: state.nextSeq, time: clock(), kind: kind, reader: reader, payload: payload)
            let published = PublishedEvent(event)
            state.nextSeq += 1
            state.ring.append(published, size: size)
            var wakeups: [SubscriberQueue.Wakeup] = []
            for queue in state.subscribers.values {
                if let wakeup = queue.push(published) { wakeups.append(wakeup) }
            }
            return (event, wakeups)
        }
        for wakeup in wakeups { wakeup.resume() }
        return event
    }

    /// Starts a subscription.
    ///
    /// - Parameters:
    ///   - since: the first sequence number wanted (inclusive), replayed from the buffer; events
    ///     already evicted are reported as one `dropped` item first. `nil` for live events only.
    ///   - kinds: the kinds to receive; `nil` for all.
    ///   - queueLimit: how many live events may wait for this subscriber before it starts losing
    ///     them (`[events] client_queue`). The replay does not count against it.
    ///   - view: what the subscriber may see of the events (its connection's roles decide);
    ///     the subscription carries it to whoever encodes its items.
    /// - Throws: ``EventHubError/sinceInFuture(since:nextSeq:)`` when `since` > ``nextSeq``;
    ///   ``EventHubError/invalidQueueLimit(_:)`` when `queueLimit` < 1.
    public func subscribe(
        since: UInt64?, kinds: Set<EventKind>? = nil, queueLimit: Int, view: EventView = .full
    ) throws(EventHubError) -> EventSubscription {
        guard queueLimit >= 1 else { throw .invalidQueueLimit(queueLimit) }
        let registered = state.withLock { state -> Result<(UInt64, SubscriberQueue, UInt64, UInt64), EventHubError> in
            let nextSeq = state.nextSeq
            let oldestSeq = state.ring.oldestSeq ?? nextSeq
            var initial: [SubscriptionItem] = []
            if let since {
                guard since <= nextSeq else { return .failure(.sinceInFuture(since: since, nextSeq: nextSeq)) }
                let first = max(since, 1)  // sequence numbers start at 1
                if first < oldestSeq {
                    initial.append(.dropped(count: oldestSeq - first, firstSeq: first, lastSeq: oldestSeq - 1))
                }
                for published in state.ring.events(since: first) where kinds?.contains(published.event.kind) ?? true {
                    initial.append(.event(published))
                }
            }
            let queue = SubscriberQueue(initial: initial, kinds: kinds, queueLimit: queueLimit)
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = queue
            return .success((id, queue, oldestSeq, nextSeq))
        }
        let (id, queue, oldestSeq, nextSeq) = try registered.get()
        return EventSubscription(id: id, queue: queue, hub: self, oldestSeq: oldestSeq, nextSeq: nextSeq, view: view)
    }

    /// Changes the replay buffer's bounds (a reload of `[events] buffer` / `buffer_bytes`): the
    /// newest events that fit the new bounds stay, with their sequence numbers; numbering goes on.
    public func resize(capacity: Int, maximumBytes: Int) {
        precondition(capacity >= 1 && maximumBytes >= 1, "EventHub bounds must be at least 1")
        state.withLock { $0.ring = $0.ring.resized(capacity: capacity, maximumBytes: maximumBytes) }
    }

    /// Changes the live-queue bound of every current subscriber (a reload of `[events]
    /// client_queue`). Events already queued stay; a queue over a lowered bound takes no more
    /// until its consumer has caught up below it (then it loses them, with one `dropped` notice).
    public func setQueueLimit(_ queueLimit: Int) {
        precondition(queueLimit >= 1, "a subscriber queue holds at least one event")
        let queues = state.withLock { Array($0.subscribers.values) }
        for queue in queues { queue.setQueueLimit(queueLimit) }
    }

    /// Forgets a subscriber; called by ``EventSubscription/cancel()``.
    func unsubscribe(id: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
