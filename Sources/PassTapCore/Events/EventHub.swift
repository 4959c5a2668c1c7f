import Foundation
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
/// Each event is encoded when it is published, once per ``EventView`` that shows it differently,
/// by the injected ``EventLineEncoder``, and stored and delivered as one ``PublishedEvent`` that
/// keeps those lines. The ring and every queue it reaches share it, so every subscriber of a view,
/// replays included, writes the same bytes.
///
/// The replay buffer is bounded twice: at most ``capacity`` events (`[events] buffer`) and at most
/// ``maximumBytes`` bytes (`[events] buffer_bytes`), each event counted at the length of its
/// longest line as encoded (``PublishedEvent``). The oldest events are evicted while either bound
/// is exceeded.
///
/// Publishers take turns under a lock of their own (numbering and encoding happen there, so the
/// ring stays in `seq` order); the state lock is held only to append and fan out, so subscribing
/// or cancelling never waits for an encoding.
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
    private let clock: DaemonClock
    private let lineEncoder: any EventLineEncoder
    /// See every published event in order (the health ledger, the metrics, the forwarding outbox).
    private let observers: [any PublishedEventObserver]
    private let state: Mutex<State>
    /// Held by one publisher at a time, from numbering to fan-out (see above); never taken while
    /// holding `state`.
    private let publishing = Mutex(())

    /// Creates a hub that keeps the last `capacity` events (at least 1), as long as they add up
    /// to at most `maximumBytes` (at least 1; the newest event is kept whatever its size).
    /// - Parameters:
    ///   - lineEncoder: makes each event's line, once per view (the daemon's is PassTapProtocol's
    ///     `EventNotificationEncoder`).
    ///   - clock: where event times come from (its wall time); tests may pin it.
    ///   - observers: handed every event once it is numbered and encoded, in `seq` order and in
    ///     their order, before subscribers are woken (see ``PublishedEventObserver``).
    public init(
        lineEncoder: any EventLineEncoder, capacity: Int = 1024, maximumBytes: Int = 4 * 1024 * 1024,
        clock: DaemonClock = .system, observers: [any PublishedEventObserver] = []
    ) {
        precondition(capacity >= 1, "EventHub capacity must be at least 1 (config [events] buffer)")
        precondition(maximumBytes >= 1, "EventHub maximumBytes must be at least 1 (config [events] buffer_bytes)")
        self.clock = clock
        self.lineEncoder = lineEncoder
        self.observers = observers
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

    /// A sink that publishes here, for backends and the tap coordinator.
    public var sink: EventSink {
        EventSink { kind, reader, payload in _ = self.publish(kind, reader: reader, payload: payload) }
    }

    /// Numbers, timestamps, encodes, stores and fans out one event. Never blocks on a subscriber.
    @discardableResult
    public func publish(_ kind: EventKind, reader: ReaderID?, payload: EventPayload) -> Event {
        let (event, wakeups) = publishing.withLock { _ -> (Event, [SubscriberQueue.Wakeup]) in
            // Only publishers move `nextSeq`, and they take turns here: it holds until the append.
            let seq = state.withLock { $0.nextSeq }
            let event = Event(seq: seq, time: clock.date, kind: kind, reader: reader, payload: payload)
            let published = PublishedEvent(event, encoder: lineEncoder)
            if kind == .readResult { TapTrace.mark(.encoded) }
            for observer in observers { observer.observe(published) }
            let wakeups = state.withLock { state -> [SubscriberQueue.Wakeup] in
                state.nextSeq = seq + 1
                state.ring.append(published, size: published.byteCount)
                var wakeups: [SubscriberQueue.Wakeup] = []
                for queue in state.subscribers.values {
                    if let wakeup = queue.push(published) { wakeups.append(wakeup) }
                }
                return wakeups
            }
            return (event, wakeups)
        }
        if kind == .readResult { TapTrace.mark(.published) }
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
