import Foundation
import ISO7816
import InMemoryLogging
import Logging
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import PassTapTestSupport
import Testing

/// A client's end of input (a half-close, as `echo REQUEST | socat - UNIX-CONNECT:...` makes) is
/// not the end of its connection: what it sent is answered, a subscription streams on, a waiting
/// `vas.read` is answered. A real close still cancels (`PassReadQueueingTests`).
@Suite(.timeLimit(.minutes(1))) struct ClientConnectionEndOfInputTests {
    private static func status(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"status"}"# }

    @Test func everyLineBeforeTheEndOfInputIsAnsweredInOrderThenTheConnectionCloses() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.send(bytes: Array((1...3).map { Self.status($0) + "\n" }.joined().utf8))
                try client.closeOutput()
                for id in 1...3 {
                    let answer = try await client.read(JSONRPCResponse<StatusResult>.self)
                    #expect(answer.id == .number(Int64(id)))
                    #expect(try answer.outcome.get().instance == harness.daemon.instance)
                }
                #expect(try await client.nextLine() == nil)
            }
        }
    }

    /// 250 answers of about 370 bytes: the first ~166 fill the socket (Linux charges each small
    /// write about 1.3 KB of the 208 KiB send buffer) and the other ~30 KB wait in NIO, under its
    /// 64 KiB high-water mark, so the server reaches the end of input with answers still queued.
    /// Closing without flushing them delivered 167 of 250 here.
    @Test func answersAClientReadsOnlyAfterItsEndOfInputAreAllDelivered() async throws {
        let count = 250
        let memory = InMemoryLogHandler()
        var logger = Logger(label: "passtap.test.server") { _ in memory }
        logger.logLevel = .debug
        try await ServerHarness.with(logger: logger) { harness in
            // A plain socket, so no event loop reads ahead of the test.
            let client = try LineClient(path: harness.path)
            try await offThePool {
                try client.send(bytes: Array((1...count).map { Self.status($0) + "\n" }.joined().utf8))
                try client.closeOutput()
            }
            // The client reads nothing until the server has answered every line and reached its
            // end of input, with the answers it could not write yet still queued.
            try await waitUntil("the server to reach the client's end of input") {
                memory.entries.contains(where: { $0.message == "the client ended its input" })
            }
            let received = try await offThePool { try client.readToEnd() }
            let ids = try received.split(separator: UInt8(ascii: "\n")).map {
                try NDJSON.decode(JSONRPCResponse<StatusResult>.self, from: Data($0)).id
            }
            #expect(ids.count == count)
            #expect(ids == (1...count).map { .number(Int64($0)) })
        }
    }

    @Test func aSubscriptionStreamsOnAfterTheEndOfInput() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
                try client.closeOutput()
                let subscribed = try await client.read(JSONRPCResponse<EventsSubscribeResult>.self)
                #expect(subscribed.id == .number(1))
                for _ in 0..<2 {
                    let event = harness.publishRemoval()
                    let notification = try await client.read(JSONRPCNotification<Event>.self)
                    #expect(notification.method == "event")
                    #expect(notification.params.seq == event.seq)
                }
            }
        }
    }

    @Test func aSubscriberThatEndedItsInputAndThenClosesGivesUpItsConnection() async throws {
        try await ServerHarness.with(configure: { $0.socket.maxClients = 1 }) { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
                try client.closeOutput()
                _ = try await client.read(JSONRPCResponse<EventsSubscribeResult>.self)
            }  // a real close
            // The only slot comes free once the server notices the close.
            // Generous: under a loaded CI machine (2 cores, every suite at once) noticing takes seconds.
            let deadline = ContinuousClock.now + .seconds(20)
            var served = false
            while !served, ContinuousClock.now < deadline {
                // A refused attempt gets too_many_clients, or (when the server closed with our
                // request unread) a reset or an early close: all three mean "not yet".
                let answer = try? await LineClient.with(path: harness.path) { client in
                    try await client.call(Self.status(2), expecting: StatusResult.self)
                }
                served = (try? answer?.outcome.get()) != nil
                if !served { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(served, "the half-closed subscriber still holds the only connection after closing")
        }
    }

    @Test(arguments: [false, true])
    func aSubscriberThatClosesItsReadingSideIsUnsubscribed(afterEndingItsInput: Bool) async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
                _ = try await client.read(JSONRPCResponse<EventsSubscribeResult>.self)
                if afterEndingItsInput { try client.closeOutput() }
                #expect(harness.hub.subscriberCount == 1)
                try client.closeInput()
                // With its input still open, the server learns it from a write that fails.
                let deadline = ContinuousClock.now + .seconds(20)
                while harness.hub.subscriberCount != 0, ContinuousClock.now < deadline {
                    harness.publishRemoval()
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(harness.hub.subscriberCount == 0)
            }
        }
    }

    @Test func aVASReadWaitingAtTheEndOfInputIsStillAnswered() async throws {
        let reader = ServerHarness.readers[0].id
        try await ServerHarness.with(configure: { $0.enableVAS(merchants: ["pass.com.example.coffee"]) }) { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(
                    #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":600000}}"#)
                try await harness.waitForVASReads(1, on: reader)
                try client.closeOutput()
                // The server's event loop has handled the end of input by now.
                try await eventLoopsHaveTurned()
                #expect(harness.vasReads.waitingCount(on: reader) == 1, "the end of input cancelled the vas.read")
                let tap = try #require(harness.vasReads.claim(reader: reader))
                harness.vasReads.finish(tap, with: PassReadQueueingTests.tap("3B04"))
                let answer = try await client.read(JSONRPCResponse<VASReadResult>.self)
                #expect(answer.id == .number(1))
                #expect(try answer.outcome.get().result.card.atr == "3B04")
                #expect(try await client.nextLine() == nil)
            }
        }
    }

    @Test func bytesAfterTheLastNewlineGetAParseErrorAndAreNotCarriedOut() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.send(bytes: Array((Self.status(1) + "\n" + Self.status(2)).utf8))
                try client.closeOutput()
                let first = try await client.read(JSONRPCResponse<StatusResult>.self)
                #expect(first.id == .number(1))
                let second = try await client.read(JSONRPCResponse<JSONRPCNoResult>.self)
                #expect(second.id == .null)
                guard case .failure(let error) = second.outcome else {
                    Issue.record("the unterminated line was answered without an error")
                    return
                }
                #expect(error.code == .parseError)
                #expect(error.message.contains("newline"))
                #expect(try await client.nextLine() == nil)
            }
        }
    }
}
