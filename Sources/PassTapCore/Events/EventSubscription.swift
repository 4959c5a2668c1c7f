/// A subscriber's view of the ``EventHub``: the replay it asked for, then the live stream.
///
/// Iterate it once, from one task (or ``poll(orNotify:)`` it from one event loop): first a
/// ``SubscriptionItem/dropped(count:firstSeq:lastSeq:)`` if `since` was older than the buffer,
/// then the buffered events from `since`, then live events, in `seq` order with no gap and no
/// duplicate except where a `dropped` item says so. Iteration
/// ends after ``cancel()``, when the iterating task is cancelled, or when the subscription is
/// released.
public final class EventSubscription: AsyncSequence, Sendable {
    public typealias Element = SubscriptionItem
    public typealias Failure = Never

    /// The oldest sequence number the hub held when this subscription started (its `nextSeq`
    /// when the buffer was empty).
    public let oldestSeq: UInt64
    /// The sequence number the hub was going to assign next when this subscription started:
    /// everything below it came from the replay, everything from it on is live.
    public let nextSeq: UInt64
    /// The kinds this subscriber receives; `nil` for all.
    public var kinds: Set<EventKind>? { queue.kinds }
    /// What this subscriber may see of its events: encode each item in this view.
    public let view: EventView

    private let id: UInt64
    private let queue: SubscriberQueue
    private let hub: EventHub

    init(id: UInt64, queue: SubscriberQueue, hub: EventHub, oldestSeq: UInt64, nextSeq: UInt64, view: EventView) {
        self.id = id
        self.view = view
        self.queue = queue
        self.hub = hub
        self.oldestSeq = oldestSeq
        self.nextSeq = nextSeq
    }

    deinit { cancel() }

    /// Stops the subscription: the hub forgets it and the iteration ends. Safe to call twice.
    public func cancel() {
        hub.unsubscribe(id: id)
        queue.finish()
    }

    /// The next item if one is ready, without waiting: for a consumer that is not a task (the
    /// server's event loops). When there is none (`nil`, also once cancelled), `notify` is called
    /// once, on the publishing thread after it has released the hub's locks, with the next event
    /// queued (it stays queued: poll again to take it). The publishing thread is a reader's, so
    /// `notify` may do CPU work such as encoding the event, but must never wait. Use either this
    /// or the iteration, from one consumer.
    public func poll(orNotify notify: @escaping @Sendable (PublishedEvent) -> Void) -> SubscriptionItem? {
        queue.poll(orNotify: notify)
    }

    /// The next item, waiting for one; `nil` once cancelled. Cancelling the waiting task cancels
    /// the subscription.
    public func next() async -> SubscriptionItem? {
        await withTaskCancellationHandler {
            await queue.next()
        } onCancel: {
            cancel()
        }
    }

    /// Iterates the items of an ``EventSubscription``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Element = SubscriptionItem
        public typealias Failure = Never

        let subscription: EventSubscription

        public mutating func next() async -> SubscriptionItem? { await subscription.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> SubscriptionItem? {
            await subscription.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}
