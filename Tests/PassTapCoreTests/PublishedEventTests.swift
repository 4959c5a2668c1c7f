import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Synchronization
import Testing

/// One stored event per published event, shared by the replay ring and every subscriber queue,
/// whose lines are made once per view.
@Suite(.timeLimit(.minutes(1))) struct PublishedEventTests {
    /// Counts encodings, by view (told apart by whether the entries were withheld).
    final class Encodings: Sendable {
        private let counts = Mutex<[EventView: Int]>([:])

        func encode(_ event: Event, as view: EventView) -> [UInt8] {
            counts.withLock { $0[view, default: 0] += 1 }
            return Array((try? JSONEncoder().encode(event)) ?? Data())
        }

        var byView: [EventView: Int] { counts.withLock { $0 } }
    }

    private func next(_ subscription: EventSubscription) async throws -> PublishedEvent {
        let item = try await withDeadline("the next subscription item") { await subscription.next() }
        guard case .event(let published) = item else { throw Unexpected(item: item) }
        return published
    }

    struct Unexpected: Error { var item: SubscriptionItem? }

    @Test func everySubscriberAndTheReplayGetTheSameStoredEvent() async throws {
        let hub = EventHub(capacity: 8)
        let live = try (0..<3).map { _ in try hub.subscribe(since: nil, queueLimit: 4) }
        hub.publish(.readResult, reader: EventViewTests.reader, payload: EventViewTests.readResultWithPass().payload)
        let replaying = try hub.subscribe(since: 1, queueLimit: 4)
        var delivered: [PublishedEvent] = []
        for subscription in live + [replaying] { delivered.append(try await next(subscription)) }
        #expect(delivered.allSatisfy { $0 === delivered[0] })
    }

    @Test func aLineIsMadeOncePerViewForAnyNumberOfSubscribers() async throws {
        let hub = EventHub(capacity: 8)
        let views: [EventView] = (0..<40).map { $0 % 4 == 0 ? .full : .passesWithheld }
        let subscriptions = try views.map { try hub.subscribe(since: nil, queueLimit: 4, view: $0) }
        hub.publish(.readResult, reader: EventViewTests.reader, payload: EventViewTests.readResultWithPass().payload)
        let encodings = Encodings()
        var lines: [EventView: Set<[UInt8]>] = [:]
        for subscription in subscriptions {
            let published = try await next(subscription)
            let view = subscription.view
            lines[view, default: []].insert(published.line(for: view) { encodings.encode($0, as: view) })
        }
        #expect(encodings.byView == [.full: 1, .passesWithheld: 1])
        #expect(lines[.full]?.count == 1 && lines[.passesWithheld]?.count == 1)
        let withheld = try #require(lines[.passesWithheld]?.first)
        #expect(!String(decoding: withheld, as: UTF8.self).contains("member 0042"))
        #expect(String(decoding: try #require(lines[.full]?.first), as: UTF8.self).contains("member 0042"))
    }

    @Test func aViewNobodyUsesIsNeverEncoded() async throws {
        let hub = EventHub(capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4, view: .passesWithheld)
        hub.publish(.cardRemoved, reader: EventViewTests.reader, payload: .cardRemoved)
        let encodings = Encodings()
        _ = try await next(subscription).line(for: .passesWithheld) { encodings.encode($0, as: .passesWithheld) }
        #expect(encodings.byView == [.passesWithheld: 1])
    }

    @Test func concurrentSubscribersOfOneViewWaitForTheOneEncoding() async throws {
        let hub = EventHub(capacity: 8)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4)
        hub.publish(.readResult, reader: EventViewTests.reader, payload: EventViewTests.readResultWithPass().payload)
        let published = try await next(subscription)
        let encodings = Encodings()
        let lines = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<64 {
                group.addTask { published.line(for: .full) { encodings.encode($0, as: .full) } }
            }
            return await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(encodings.byView == [.full: 1])
        #expect(lines.count == 1)
    }
}
