import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct EventHubTests {
    private let reader = ReaderID.pcsc("Test Reader 00 00")

    @discardableResult
    private func publish(_ hub: EventHub, _ count: Int, kind: EventKind = .cardRemoved) -> [Event] {
        (0..<count).map { _ in hub.publish(kind, reader: reader, payload: .cardRemoved) }
    }

    /// The next `count` items; fails after a few seconds if they do not come (the iteration
    /// ending early returns what came).
    private func take(_ count: Int, from subscription: EventSubscription) async throws -> [SubscriptionItem] {
        try await withDeadline("\(count) subscription items") {
            var items: [SubscriptionItem] = []
            for await item in subscription {
                items.append(item)
                if items.count == count { break }
            }
            return items
        }
    }

    /// The next item; fails after a few seconds if none comes.
    private func next(_ subscription: EventSubscription) async throws -> SubscriptionItem? {
        try await withDeadline("the next subscription item") { await subscription.next() }
    }

    private func seqs(_ items: [SubscriptionItem]) -> [UInt64] {
        items.compactMap { if case .event(let published) = $0 { return published.event.seq } else { return nil } }
    }

    @Test func sequenceNumbersStartAtOneAndStrictlyIncrease() {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        #expect(hub.nextSeq == 1)
        let events = publish(hub, 5)
        #expect(events.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(hub.nextSeq == 6)
    }

    @Test func publishStampsTimeFromTheClock() {
        let pinned = Date(timeIntervalSince1970: 1_800_000_000.25)
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 4, clock: DaemonClock(date: { pinned }))
        let event = hub.publish(.backendUp, reader: nil, payload: .backend(name: "pcsc", reason: nil))
        #expect(event.time == pinned)
        #expect(event.reader == nil)
        #expect(event.kind == .backendUp)
    }

    @Test func subscribingWithoutSinceGivesOnlyLiveEvents() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(hub, 3)
        let subscription = try hub.subscribe(since: nil, queueLimit: 16)
        #expect(subscription.nextSeq == 4)
        #expect(subscription.oldestSeq == 1)
        publish(hub, 2)
        #expect(seqs(try await take(2, from: subscription)) == [4, 5])
    }

    @Test func replayFromSinceMeetsTheLiveStreamWithNoGapAndNoDuplicate() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(hub, 5)
        let subscription = try hub.subscribe(since: 3, queueLimit: 16)
        #expect(subscription.nextSeq == 6)
        publish(hub, 2)
        #expect(seqs(try await take(5, from: subscription)) == [3, 4, 5, 6, 7])
    }

    @Test func sinceEqualToNextSeqReplaysNothing() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(hub, 4)
        let subscription = try hub.subscribe(since: 5, queueLimit: 16)
        publish(hub, 1)
        #expect(seqs(try await take(1, from: subscription)) == [5])
    }

    @Test func sinceBeyondNextSeqIsRefused() {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(hub, 2)
        #expect(throws: EventHubError.sinceInFuture(since: 4, nextSeq: 3)) {
            try hub.subscribe(since: 4, queueLimit: 16)
        }
        #expect(hub.subscriberCount == 0)
    }

    @Test func queueLimitBelowOneIsRefused() {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        #expect(throws: EventHubError.invalidQueueLimit(0)) {
            try hub.subscribe(since: nil, queueLimit: 0)
        }
    }

    @Test func sinceOlderThanTheBufferReportsTheGapBeforeTheReplay() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 3)
        publish(hub, 5)  // the buffer now holds 3, 4, 5
        #expect(hub.oldestSeq == 3)
        let subscription = try hub.subscribe(since: 1, queueLimit: 16)
        #expect(subscription.oldestSeq == 3)
        let items = try await take(4, from: subscription)
        #expect(items.first == .dropped(count: 2, firstSeq: 1, lastSeq: 2))
        #expect(seqs(items) == [3, 4, 5])
    }

    @Test func theReplayBufferIsBoundedInBytesAsWellAsInCount() async throws {
        let probe = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(probe, 1)
        let small = probe.bufferedBytes
        #expect(small > 100)

        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 100, maximumBytes: 3 * small)
        publish(hub, 5)
        #expect(hub.bufferedCount == 3 && hub.bufferedBytes == 3 * small)
        #expect(hub.oldestSeq == 3)
        let subscription = try hub.subscribe(since: 1, queueLimit: 16)
        let items = try await take(4, from: subscription)
        #expect(items.first == .dropped(count: 2, firstSeq: 1, lastSeq: 2))
        #expect(seqs(items) == [3, 4, 5])
    }

    @Test func aLargeEventEvictsAsManyOldOnesAsItNeedsAndTheNewestIsAlwaysKept() {
        let probe = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(probe, 1)
        let small = probe.bufferedBytes
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 100, maximumBytes: 4 * small)
        publish(hub, 4)
        // An event about two small ones long takes the room of as many of the oldest as it needs.
        let payload = EventPayload.backend(name: "pcsc", reason: String(repeating: "x", count: small))
        let sizer = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        sizer.publish(.backendDown, reader: nil, payload: payload)
        let kept = (4 * small - sizer.bufferedBytes) / small
        #expect(kept >= 1 && kept < 4)
        let large = hub.publish(.backendDown, reader: nil, payload: payload)
        #expect(hub.bufferedCount == kept + 1 && hub.oldestSeq == UInt64(5 - kept))
        #expect(hub.bufferedBytes == kept * small + sizer.bufferedBytes)
        // An event larger than the whole buffer is kept alone.
        let huge = hub.publish(.backendDown, reader: nil, payload: .backend(name: "pcsc", reason: String(repeating: "y", count: 10 * small)))
        #expect(hub.bufferedCount == 1 && hub.oldestSeq == huge.seq && huge.seq == large.seq + 1)
        #expect(hub.bufferedBytes > 4 * small)
        publish(hub, 1)
        #expect(hub.bufferedCount == 1 && hub.bufferedBytes == small)
    }

    @Test func theCountBoundStillHoldsWithRoomToSpare() {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 3, maximumBytes: 1 << 30)
        publish(hub, 10)
        #expect(hub.bufferedCount == 3 && hub.oldestSeq == 8)
    }

    @Test func sinceZeroMeansFromTheFirstEvent() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        publish(hub, 2)
        let subscription = try hub.subscribe(since: 0, queueLimit: 16)
        #expect(seqs(try await take(2, from: subscription)) == [1, 2])
    }

    @Test func replayLongerThanTheQueueLimitIsDeliveredWhole() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 64)
        publish(hub, 40)
        let subscription = try hub.subscribe(since: 1, queueLimit: 4)
        publish(hub, 2)
        #expect(seqs(try await take(42, from: subscription)) == Array(1...42))
    }

    @Test func kindsFilterAppliesToReplayAndLive() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 16)
        hub.publish(.cardInserted, reader: reader, payload: .card(CardInfo(atr: "3B00", uid: nil)))  // 1
        hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved)  // 2
        let subscription = try hub.subscribe(since: 1, kinds: [.cardRemoved], queueLimit: 16)
        #expect(subscription.kinds == [.cardRemoved])
        hub.publish(.cardInserted, reader: reader, payload: .card(CardInfo(atr: "3B00", uid: nil)))  // 3
        hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved)  // 4
        let items = try await take(2, from: subscription)
        #expect(seqs(items) == [2, 4])
    }

    @Test func aFullQueueDropsEventsThenReportsTheRunOnceAndContinues() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 64)
        let subscription = try hub.subscribe(since: nil, queueLimit: 2)
        publish(hub, 5)  // 1 and 2 fit, 3...5 are dropped; publish returned without a consumer
        let first = try await take(3, from: subscription)
        #expect(seqs(first) == [1, 2])
        #expect(first.last == .dropped(count: 3, firstSeq: 3, lastSeq: 5))
        publish(hub, 1)
        #expect(seqs(try await take(1, from: subscription)) == [6])
    }

    @Test func droppingContinuesUntilTheQueuedEventsAreConsumed() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 64)
        let subscription = try hub.subscribe(since: nil, queueLimit: 2)
        publish(hub, 3)  // 1, 2 queued; 3 dropped
        #expect(try await next(subscription).flatMap { seqs([$0]).first } == 1)
        publish(hub, 1)  // 4: still dropping, so no reordering past the notice
        #expect(try await next(subscription).flatMap { seqs([$0]).first } == 2)
        #expect(try await next(subscription) == .dropped(count: 2, firstSeq: 3, lastSeq: 4))
        publish(hub, 1)
        #expect(try await next(subscription).flatMap { seqs([$0]).first } == 5)
    }

    @Test func droppedEventsOfOtherKindsAreNotCounted() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 64)
        let subscription = try hub.subscribe(since: nil, kinds: [.cardRemoved], queueLimit: 1)
        publish(hub, 1)  // 1 queued
        publish(hub, 1, kind: .readerAdded)  // 2: not wanted, not a drop
        publish(hub, 2)  // 3, 4 dropped
        let items = try await take(2, from: subscription)
        #expect(seqs(items) == [1])
        #expect(items.last == .dropped(count: 2, firstSeq: 3, lastSeq: 4))
    }

    @Test func aSlowSubscriberDoesNotAffectAnother() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 64)
        let slow = try hub.subscribe(since: nil, queueLimit: 1)
        let fast = try hub.subscribe(since: nil, queueLimit: 100)
        publish(hub, 50)
        #expect(seqs(try await take(50, from: fast)) == Array(1...50))
        let slowItems = try await take(2, from: slow)
        #expect(seqs(slowItems) == [1])
        #expect(slowItems.last == .dropped(count: 49, firstSeq: 2, lastSeq: 50))
    }

    @Test func concurrentPublishersFromThreadsYieldOneGaplessOrderedStream() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 4096)
        let threads = 4
        let perThread = 500
        let subscription = try hub.subscribe(since: nil, queueLimit: threads * perThread)
        for index in 0..<threads {
            let thread = Thread { [reader] in
                for _ in 0..<perThread {
                    hub.publish(.backendUp, reader: reader, payload: .backend(name: "thread-\(index)", reason: nil))
                }
            }
            thread.start()
        }
        let items = try await take(threads * perThread, from: subscription)
        #expect(seqs(items) == Array(1...UInt64(threads * perThread)))
        var perPublisher: [String: Int] = [:]
        for case .event(let published) in items {
            if case .backend(let name, _) = published.event.payload { perPublisher[name, default: 0] += 1 }
        }
        #expect(perPublisher.count == threads)
        #expect(perPublisher.values.allSatisfy { $0 == perThread })
    }

    @Test func cancelEndsTheIterationAndForgetsTheSubscriber() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4)
        #expect(hub.subscriberCount == 1)
        let consumer = Task { try await take(10, from: subscription).count }
        subscription.cancel()
        #expect(try await value(of: consumer, "the consumer to see the end") == 0)
        #expect(hub.subscriberCount == 0)
        publish(hub, 1)
        #expect(try await next(subscription) == nil)
    }

    @Test func cancellingTheConsumingTaskEndsTheIteration() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4)
        let consumer = Task { await subscription.next() }
        consumer.cancel()
        #expect(try await value(of: consumer, "the cancelled consumer") == nil)
        #expect(hub.subscriberCount == 0)
    }

    @Test func releasingASubscriptionUnsubscribes() throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        do {
            let subscription = try hub.subscribe(since: nil, queueLimit: 4)
            #expect(subscription.nextSeq == 1)
            #expect(hub.subscriberCount == 1)
        }
        #expect(hub.subscriberCount == 0)
    }

    @Test func aPolledSubscriptionIsToldOnceWhenAnEventArrivesAfterItRanDry() throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4)
        let notices = Counter()
        let notify: @Sendable (PublishedEvent) -> Void = { _ in notices.increment() }
        #expect(subscription.poll(orNotify: notify) == nil)
        publish(hub, 2)
        #expect(notices.value == 1)  // once for the two: it had not polled again yet
        #expect(seqs([subscription.poll(orNotify: notify), subscription.poll(orNotify: notify)].compactMap { $0 }) == [1, 2])
        #expect(subscription.poll(orNotify: notify) == nil)
        publish(hub, 1)
        #expect(notices.value == 2)
        subscription.cancel()
        publish(hub, 1)
        #expect(notices.value == 2)
        #expect(subscription.poll(orNotify: notify) == nil)
    }

    @Test func theRingKeepsOnlyTheNewestEvents() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 2)
        publish(hub, 3)
        #expect(hub.oldestSeq == 2)
        let subscription = try hub.subscribe(since: 2, queueLimit: 4)
        #expect(seqs(try await take(2, from: subscription)) == [2, 3])
    }
}

/// A thread-safe count for closures.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A reload changes `[events] buffer`, `buffer_bytes` and `client_queue` on the running hub.
@Suite(.timeLimit(.minutes(1))) struct EventHubReloadTests {
    private let reader = ReaderID.pcsc("Test Reader 00 00")

    @Test func resizingKeepsTheNewestEventsAndTheirNumbersAndNumberingGoesOn() throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        for _ in 0..<6 { hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved) }
        hub.resize(capacity: 3, maximumBytes: 1 << 20)
        #expect(hub.capacity == 3 && hub.bufferedCount == 3)
        #expect(hub.oldestSeq == 4)
        #expect(hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved).seq == 7)
        #expect(hub.oldestSeq == 5)
        hub.resize(capacity: 10, maximumBytes: 1 << 20)
        for _ in 0..<5 { hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved) }
        #expect(hub.bufferedCount == 8 && hub.oldestSeq == 5)
        let subscription = try hub.subscribe(since: 1, queueLimit: 4)
        #expect(subscription.oldestSeq == 5)
    }

    @Test func resizingByBytesEvictsTheOldest() {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 100)
        for _ in 0..<10 { hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved) }
        let each = hub.bufferedBytes / 10
        hub.resize(capacity: 100, maximumBytes: each * 4)
        #expect(hub.bufferedCount == 4 && hub.oldestSeq == 7)
        #expect(hub.maximumBytes == each * 4)
    }

    @Test func aLoweredQueueLimitHoldsForAnExistingSubscriber() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 64)
        let subscription = try hub.subscribe(since: nil, queueLimit: 10)
        hub.setQueueLimit(2)
        for _ in 0..<5 { hub.publish(.cardRemoved, reader: reader, payload: .cardRemoved) }
        var items: [SubscriptionItem] = []
        for _ in 0..<3 {
            guard let item = subscription.poll(orNotify: { _ in }) else { break }
            items.append(item)
        }
        #expect(items.count == 3)
        guard case .dropped(let count, let first, let last) = items.last else {
            Issue.record("no dropped notice: \(items)")
            return
        }
        #expect(count == 3 && first == 3 && last == 5)
    }
}
