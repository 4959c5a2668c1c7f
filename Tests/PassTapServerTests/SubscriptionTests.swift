import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import Testing

/// What a subscriber read from one notification line.
enum Received: Equatable {
    case event(seq: UInt64, kind: EventKind)
    case dropped(EventsDroppedParams)
}

extension LineClient {
    /// Subscribes and returns the result that came first.
    func subscribe(_ params: String = "{}") async throws -> EventsSubscribeResult {
        let answer = try await call(
            #"{"jsonrpc":"2.0","id":"sub","method":"events.subscribe","params":\#(params)}"#,
            expecting: EventsSubscribeResult.self)
        #expect(answer.id == .string("sub"))
        return try answer.outcome.get()
    }

    /// Reads one notification.
    func receive() async throws -> Received {
        guard let line = try await nextLine() else { throw ClosedEarly() }
        let data = Data(line.utf8)
        let envelope = try NDJSON.decode(JSONRPCEnvelope.self, from: data)
        #expect(envelope.isNotification)
        switch envelope.method {
        case RPCNotificationMethod.event.rawValue:
            let event = try NDJSON.decode(JSONRPCNotification<Event>.self, from: data).params
            return .event(seq: event.seq, kind: event.kind)
        case RPCNotificationMethod.eventsDropped.rawValue:
            return .dropped(try NDJSON.decode(JSONRPCNotification<EventsDroppedParams>.self, from: data).params)
        default:
            throw UnexpectedLine(line: line)
        }
    }

    /// Reads `count` notifications and returns their sequence numbers (events only).
    func receiveSeqs(_ count: Int) async throws -> [UInt64] {
        var seqs: [UInt64] = []
        for _ in 0..<count {
            if case .event(let seq, _) = try await receive() { seqs.append(seq) }
        }
        return seqs
    }

    struct UnexpectedLine: Error { var line: String }
}

@Suite(.timeLimit(.minutes(1))) struct SubscriptionTests {
    @Test func subscribeAnswersFirstThenReplaysFromSinceThenGoesLive() async throws {
        try await ServerHarness.with { harness in
            for _ in 0..<3 { harness.publishRemoval() }
            try await LineClient.with(path: harness.path) { client in
                let result = try await client.subscribe(#"{"since":2}"#)
                #expect(result.instance == harness.daemon.instance)
                #expect(result.oldestSeq == 1)
                #expect(result.nextSeq == 4)
                #expect(try await client.receiveSeqs(2) == [2, 3])
                harness.publishRemoval()
                #expect(try await client.receiveSeqs(1) == [4])
            }
        }
    }

    @Test func reconnectingWithSinceMissesNothingAndRepeatsNothing() async throws {
        try await ServerHarness.with { harness in
            let lastSeen = try await LineClient.with(path: harness.path) { client in
                _ = try await client.subscribe()
                for _ in 0..<3 { harness.publishRemoval() }
                return try await client.receiveSeqs(3).last
            }
            #expect(lastSeen == 3)
            // Published while nobody was connected.
            harness.publishRemoval()
            harness.publishRemoval()
            try await LineClient.with(path: harness.path) { client in
                let result = try await client.subscribe(#"{"since":\#(try #require(lastSeen) + 1)}"#)
                #expect(result.nextSeq == 6)
                harness.publishRemoval()
                #expect(try await client.receiveSeqs(3) == [4, 5, 6])
            }
        }
    }

    @Test func sinceOlderThanTheBufferIsReportedAsDroppedFirst() async throws {
        try await ServerHarness.with(hubCapacity: 2) { harness in
            for _ in 0..<5 { harness.publishRemoval() }  // only 4 and 5 are kept
            try await LineClient.with(path: harness.path) { client in
                let result = try await client.subscribe(#"{"since":1}"#)
                #expect(result.oldestSeq == 4)
                #expect(try await client.receive() == .dropped(EventsDroppedParams(count: 3, firstSeq: 1, lastSeq: 3)))
                #expect(try await client.receiveSeqs(2) == [4, 5])
            }
        }
    }

    @Test func kindsLimitWhatASubscriberReceives() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                _ = try await client.subscribe(#"{"kinds":["reader.added"]}"#)
                harness.publishRemoval()
                let info = ServerHarness.readers[0]
                harness.hub.publish(.readerAdded, reader: info.id, payload: .reader(info))
                #expect(try await client.receive() == .event(seq: 2, kind: .readerAdded))
            }
        }
    }

    @Test func aSecondSubscribeOnOneConnectionIsRefused() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                _ = try await client.subscribe()
                let second = try await client.call(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe"}"#)
                guard case .failure(let error) = second.outcome else {
                    Issue.record("a second subscription was accepted")
                    return
                }
                #expect(error.code == .alreadySubscribed)
                harness.publishRemoval()
                #expect(try await client.receiveSeqs(1) == [1])
            }
        }
    }

    @Test func requestsStillWorkOnASubscribedConnection() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                _ = try await client.subscribe()
                let answer = try await client.call(
                    #"{"jsonrpc":"2.0","id":8,"method":"readers.list"}"#, expecting: ReadersListResult.self)
                #expect(try answer.outcome.get().readers.count == ServerHarness.readers.count)
            }
        }
    }

    @Test func aStalledClientGetsEventsDroppedWhileAnotherReceivesEverything() async throws {
        let events = 400
        let padding = String(repeating: "r", count: 16 * 1024)  // big lines fill the socket buffers quickly
        try await ServerHarness.with(configure: { $0.events.clientQueue = 4 }) { harness in
            try await LineClient.with(path: harness.path) { stalled in
                _ = try await stalled.subscribe()
                try await LineClient.with(path: harness.path) { fast in
                    _ = try await fast.subscribe()
                    for expected in 1...UInt64(events) {
                        // publish never waits for the stalled client; the fast one sees every event in turn.
                        harness.hub.publish(.backendDown, reader: nil, payload: .backend(name: "pcsc", reason: padding))
                        #expect(try await fast.receive() == .event(seq: expected, kind: .backendDown))
                    }
                }
                // The stalled client now reads: events and drop notices together cover 1...events once each.
                var covered: [UInt64] = []
                var notices = 0
                while covered.last != UInt64(events) {
                    switch try await stalled.receive() {
                    case .event(let seq, _):
                        covered.append(seq)
                    case .dropped(let dropped):
                        notices += 1
                        #expect(dropped.count == dropped.lastSeq - dropped.firstSeq + 1)
                        covered.append(contentsOf: dropped.firstSeq...dropped.lastSeq)
                    }
                }
                #expect(notices >= 1)
                #expect(covered == Array(1...UInt64(events)))
            }
        }
    }
}
