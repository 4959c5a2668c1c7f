import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing
import VASSettings

/// One stored event per published event, shared by the replay ring and every subscriber queue,
/// whose lines the hub makes once per view when it publishes it.
@Suite(.timeLimit(.minutes(1))) struct PublishedEventTests {
    private func next(_ subscription: EventSubscription) async throws -> PublishedEvent {
        let item = try await withDeadline("the next subscription item") { await subscription.next() }
        guard case .event(let published) = item else { throw Unexpected(item: item) }
        return published
    }

    private func text(_ line: any EventLine) throws -> String { try #require(line as? TestLineEncoder.Line).text }

    struct Unexpected: Error { var item: SubscriptionItem? }

    @Test func everySubscriberAndTheReplayGetTheSameStoredEvent() async throws {
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        let live = try (0..<3).map { _ in try hub.subscribe(since: nil, queueLimit: 4) }
        hub.publish(.readResult, reader: EventViewTests.reader, payload: EventViewTests.readResultWithPass().payload)
        let replaying = try hub.subscribe(since: 1, queueLimit: 4)
        var delivered: [PublishedEvent] = []
        for subscription in live + [replaying] { delivered.append(try await next(subscription)) }
        #expect(delivered.allSatisfy { $0 === delivered[0] })
    }

    @Test func aLineIsMadeOncePerViewWhenPublishedForAnyNumberOfSubscribers() async throws {
        let encoder = TestLineEncoder()
        let hub = EventHub(lineEncoder: encoder, capacity: 8)
        let views: [EventView] = (0..<40).map { $0 % 4 == 0 ? .full : .passesWithheld }
        let subscriptions = try views.map { try hub.subscribe(since: nil, queueLimit: 4, view: $0) }
        hub.publish(.readResult, reader: EventViewTests.reader, payload: EventViewTests.readResultWithPass().payload)
        #expect(encoder.count == 2)
        var lines: [EventView: Set<String>] = [:]
        for subscription in subscriptions {
            let published = try await next(subscription)
            lines[subscription.view, default: []].insert(try text(published.line(for: subscription.view)))
        }
        #expect(encoder.count == 2)
        #expect(lines[.full]?.count == 1 && lines[.passesWithheld]?.count == 1)
        let withheld = try #require(lines[.passesWithheld]?.first)
        #expect(!withheld.contains("member 0042") && withheld.contains(#""withheld":"access""#))
        #expect(try #require(lines[.full]?.first).contains("member 0042"))
    }

    @Test func anEventWithNothingToWithholdIsEncodedOnceForBothViews() async throws {
        let encoder = TestLineEncoder()
        let hub = EventHub(lineEncoder: encoder, capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4, view: .passesWithheld)
        hub.publish(.cardRemoved, reader: EventViewTests.reader, payload: .cardRemoved)
        let published = try await next(subscription)
        #expect(encoder.count == 1)
        #expect(try text(published.line(for: .passesWithheld)) == text(published.line(for: .full)))
    }

    @Test func theHubCountsAnEventAtItsLongestLine() throws {
        // Entries without a pass: withholding only adds `"withheld":"access"`, so that line is longer.
        var event = EventViewTests.readResultWithPass()
        guard case .readResult(var result) = event.payload, var vas = result.session?.vas else { throw Unexpected(item: nil) }
        vas.entries = vas.entries.map { var entry = $0; entry.payload = nil; entry.variant = nil; return entry }
        result.session?.vas = vas
        event.payload = .readResult(result)
        let hub = EventHub(lineEncoder: TestLineEncoder(), capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4)
        hub.publish(.readResult, reader: EventViewTests.reader, payload: event.payload)
        let item = subscription.poll(orNotify: { _ in })
        let published = try #require(item?.publishedEvent)
        let full = published.line(for: .full).byteCount
        let withheld = published.line(for: .passesWithheld).byteCount
        #expect(withheld > full)
        #expect(hub.bufferedBytes == withheld)
    }
}

extension SubscriptionItem {
    fileprivate var publishedEvent: PublishedEvent? {
        if case .event(let published) = self { return published }
        return nil
    }
}
