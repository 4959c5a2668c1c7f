import Synchronization

/// The bounded queue between the ``EventHub`` and one ``EventSubscription``'s consumer.
///
/// The hub pushes events from any thread (never blocking: when the queue is full the event is
/// counted as dropped instead); the consumer pulls in order, either by waiting in ``next()`` (a
/// task) or by ``poll(orNotify:)`` (an event loop: when the queue is empty it is told once, off
/// every lock, that something arrived). Once a drop happens the queue keeps
/// dropping until the consumer has drained what was queued, then hands out one
/// ``SubscriptionItem/dropped(count:firstSeq:lastSeq:)`` for the whole run before new events flow
/// again, so a slow consumer gets one notice per stall rather than one per event.
final class SubscriberQueue: Sendable {
    private struct DropRun {
        var count: UInt64
        var firstSeq: UInt64
        var lastSeq: UInt64
    }

    /// The consumer waiting for the next push.
    private enum Waiter {
        /// A task suspended in ``next()``: the next item is handed to it directly.
        case task(CheckedContinuation<SubscriptionItem?, Never>)
        /// A poller that found the queue empty: told once that an event is queued, and which.
        case poller(@Sendable (PublishedEvent) -> Void)
    }

    private struct State {
        var items: [SubscriptionItem]
        var readIndex = 0
        /// Items at the front that came from the replay (exempt from `queueLimit`).
        var replayRemaining: Int
        /// Live events queued (counted against `queueLimit`).
        var liveCount = 0
        var dropRun: DropRun?
        var waiter: Waiter?
        var finished = false
        /// How many live events may wait (`[events] client_queue`).
        var queueLimit: Int

        mutating func pop() -> SubscriptionItem? {
            if readIndex < items.count {
                let item = items[readIndex]
                readIndex += 1
                if replayRemaining > 0 { replayRemaining -= 1 } else { liveCount -= 1 }
                if readIndex == items.count {
                    items.removeAll(keepingCapacity: true)
                    readIndex = 0
                } else if readIndex >= 64 && readIndex * 2 >= items.count {
                    items.removeFirst(readIndex)
                    readIndex = 0
                }
                return item
            }
            if let run = dropRun {
                dropRun = nil
                return .dropped(count: run.count, firstSeq: run.firstSeq, lastSeq: run.lastSeq)
            }
            return nil
        }
    }

    /// What a push asks the caller to do once it has released its locks.
    struct Wakeup {
        fileprivate enum Action {
            case hand(SubscriptionItem, to: CheckedContinuation<SubscriptionItem?, Never>)
            case notify(@Sendable (PublishedEvent) -> Void, PublishedEvent)
        }

        fileprivate let action: Action

        /// Hands the item to the task that was waiting for it, or tells the poller one is queued.
        func resume() {
            switch action {
            case .hand(let item, let continuation): continuation.resume(returning: item)
            case .notify(let notify, let published): notify(published)
            }
        }
    }

    let kinds: Set<EventKind>?
    private let state: Mutex<State>

    /// A queue that starts with `initial` (the gap notice and replay), then takes live events.
    init(initial: [SubscriptionItem], kinds: Set<EventKind>?, queueLimit: Int) {
        self.kinds = kinds
        self.state = Mutex(State(items: initial, replayRemaining: initial.count, queueLimit: queueLimit))
    }

    /// Whether this subscriber wants events of `kind`.
    func wants(_ kind: EventKind) -> Bool { kinds?.contains(kind) ?? true }

    /// Offers a live event. Never blocks; returns a wakeup to run after the caller unlocks, if the
    /// consumer was waiting.
    func push(_ published: PublishedEvent) -> Wakeup? {
        guard wants(published.event.kind) else { return nil }
        return state.withLock { state -> Wakeup? in
            if state.finished { return nil }
            if case .task(let continuation) = state.waiter {
                state.waiter = nil
                return Wakeup(action: .hand(.event(published), to: continuation))
            }
            if state.dropRun != nil {
                state.dropRun!.count += 1
                state.dropRun!.lastSeq = published.event.seq
            } else if state.liveCount >= state.queueLimit {
                state.dropRun = DropRun(count: 1, firstSeq: published.event.seq, lastSeq: published.event.seq)
            } else {
                state.items.append(.event(published))
                state.liveCount += 1
            }
            if case .poller(let notify) = state.waiter {
                state.waiter = nil
                return Wakeup(action: .notify(notify, published))
            }
            return nil
        }
    }

    /// Changes how many live events may wait; those already queued stay.
    func setQueueLimit(_ limit: Int) {
        state.withLock { $0.queueLimit = limit }
    }

    /// The next item, waiting for one if none is queued; `nil` once finished. Cancellation is
    /// handled by the caller (``EventSubscription``), which calls ``finish()``.
    func next() async -> SubscriptionItem? {
        await withCheckedContinuation { (continuation: CheckedContinuation<SubscriptionItem?, Never>) in
            let ready: SubscriptionItem?? = state.withLock { state in
                if state.finished { return .some(nil) }
                if let item = state.pop() { return .some(item) }
                precondition(state.waiter == nil, "an EventSubscription has a single consumer")
                state.waiter = .task(continuation)
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The next item if one is ready, without waiting. When none is (`nil`), `notify` is called
    /// once, from the publishing thread after it has released its locks, with the next event
    /// queued; then poll again. Never called once the queue is finished. One consumer at a time,
    /// as for ``next()``.
    func poll(orNotify notify: @escaping @Sendable (PublishedEvent) -> Void) -> SubscriptionItem? {
        state.withLock { state in
            if state.finished { return nil }
            if let item = state.pop() { return item }
            if case .task = state.waiter { preconditionFailure("an EventSubscription has a single consumer") }
            state.waiter = .poller(notify)
            return nil
        }
    }

    /// Ends the queue: a task waiting in ``next()`` gets `nil`, a poller is forgotten without being
    /// told, queued items are discarded.
    func finish() {
        let waiter = state.withLock { state -> Waiter? in
            state.finished = true
            state.items.removeAll()
            state.readIndex = 0
            state.dropRun = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        if case .task(let continuation) = waiter { continuation.resume(returning: nil) }
    }
}
