import Foundation
import ISO7816
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing
import VAS

@testable import PassTapServer
import Wallets

/// Fan-out: `events.subscribe` picks the view from the connection's roles, and an event is
/// encoded once per view in use for all its subscribers, replays included, every subscriber of
/// a view writing the same bytes.
@Suite(.timeLimit(.minutes(1))) struct FanOutTests {
    static let reader = ReaderID.pcsc("Zeta Reader 00 00")
    static let daemon = DaemonInfo(version: "9.9.9", instance: "instance-1", started: ContinuousClock.now)
    static let subscribe = #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"since":1}}"#

    /// A `read.result` whose coffee entry carries a decrypted pass.
    static func readResultWithPass() -> EventPayload {
        var coffee = VASEntry(passTypeID: "pass.com.example.coffee", status: .success, sw: "9000", keyID: VASKeyID(bytes: [1, 2, 3, 4]))
        coffee.publish(VASPayload(timestampRaw: 817_038_360, message: Array("member 0042".utf8)), variant: .a)
        let vas = VASSessionResult(
            offered: true, wallet: "ApplePay", version: "0100", capabilities: nil, mode: .vasOrPayment, problem: nil, entries: [coffee])
        let card = CardInfo(atr: "3B80800101", uid: "04A1B2C3D4E5F6")
        return .readResult(ReadResult(card: card, target: .isoDep, session: SessionOutcome(vas: vas)))
    }

    /// A dispatcher serving only `events.subscribe`.
    static func dispatcher(_ hub: EventHub) -> MethodDispatcher {
        MethodDispatcher(handlers: [EventsSubscribeHandler(hub: hub, daemon: daemon, queueLimit: 8)])
    }

    /// Subscribes as a connection holding `roles` would.
    static func subscribe(_ dispatcher: MethodDispatcher, roles: Set<AccessRole>) async throws -> EventSubscription {
        let outcome = await dispatcher.handle(line: ByteBuffer(string: subscribe), alreadySubscribed: false, roles: roles)
        guard case .subscribed(_, let subscription) = outcome else { throw Failure(description: "events.subscribe did not subscribe") }
        return subscription
    }

    /// The next notification line the connection would write for `subscription`.
    static func nextLine(_ subscription: EventSubscription, _ dispatcher: MethodDispatcher) async throws -> ByteBuffer {
        let item = try await withDeadline("the next subscription item") { await subscription.next() }
        return dispatcher.notificationLine(for: try #require(item), view: subscription.view)
    }

    /// The first VAS entry of a `read.result` line, as JSON.
    static func entry(_ line: ByteBuffer) throws -> [String: Any] {
        let message = try #require(try JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any])
        let params = try #require(message["params"] as? [String: Any])
        let entries = try #require((params["vas"] as? [String: Any])?["entries"] as? [[String: Any]])
        return try #require(entries.first)
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    @Test func theViewFollowsTheReadRole() {
        #expect(EventsSubscribeHandler.view(for: [.observe]) == .passesWithheld)
        #expect(EventsSubscribeHandler.view(for: [.observe, .transmit]) == .passesWithheld)
        #expect(EventsSubscribeHandler.view(for: [.observe, .read]) == .full)
        #expect(EventsSubscribeHandler.view(for: Set(AccessRole.allCases)) == .full)
    }

    @Test func aSubscriberWithoutReadSeesNullsAndWithheldOneWithReadSeesTheMessage() async throws {
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8)
        let dispatcher = Self.dispatcher(hub)
        let observer = try await Self.subscribe(dispatcher, roles: [.observe])
        let reader = try await Self.subscribe(dispatcher, roles: [.observe, .read])
        hub.publish(.readResult, reader: Self.reader, payload: Self.readResultWithPass())

        let withheld = try Self.entry(try await Self.nextLine(observer, dispatcher))
        #expect(withheld["status"] as? String == "success" && withheld["key_id"] as? String == "01020304")
        #expect(withheld["withheld"] as? String == "access")
        #expect(withheld["message"] is NSNull && withheld["message_hex"] is NSNull)
        #expect(withheld["timestamp"] is NSNull && withheld["timestamp_raw"] is NSNull && withheld["variant"] is NSNull)

        let full = try Self.entry(try await Self.nextLine(reader, dispatcher))
        #expect(full["withheld"] is NSNull)
        #expect(full["message"] as? String == "member 0042" && full["message_hex"] as? String == "6D656D6265722030303432")
    }

    @Test func anEventIsEncodedOncePerViewForAllItsSubscribersReplayIncluded() async throws {
        let encodings = Counter()
        let hub = EventHub(lineEncoder: CountingEventEncoder(counter: encodings), capacity: 8)
        let dispatcher = Self.dispatcher(hub)
        var subscriptions: [EventSubscription] = []
        for index in 0..<60 {
            subscriptions.append(try await Self.subscribe(dispatcher, roles: index % 3 == 0 ? [.observe, .read] : [.observe]))
        }
        hub.publish(.readResult, reader: Self.reader, payload: Self.readResultWithPass())
        var lines: [EventView: [ByteBuffer]] = [:]
        for subscription in subscriptions {
            lines[subscription.view, default: []].append(try await Self.nextLine(subscription, dispatcher))
        }
        #expect(encodings.value == 2)

        // Late subscribers replaying the event from the buffer reuse the same lines.
        for roles: Set<AccessRole> in [[.observe], [.observe, .read]] {
            let late = try await Self.subscribe(dispatcher, roles: roles)
            lines[late.view, default: []].append(try await Self.nextLine(late, dispatcher))
        }
        #expect(encodings.value == 2)

        for view in EventView.allCases {
            let written = try #require(lines[view])
            #expect(written.count == (view == .full ? 21 : 41))
            // One line per view, and the same storage: each connection writes the shared buffer.
            #expect(Set(written).count == 1)
            let storage = Set(written.map { $0.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) } })
            #expect(storage.count == 1)
        }
    }
}
