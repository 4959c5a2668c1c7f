import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import PassTapTestSupport
import Synchronization
import Testing

/// The socket server tells its observer (the metrics recorder) of clients and dropped events.
@Suite(.timeLimit(.minutes(1))) struct SocketServerObserverTests {
    final class Tally: Sendable {
        let clients = Mutex(0)
        let dropped = Mutex<[UInt64]>([])

        var observer: SocketServerObserver {
            SocketServerObserver(
                clientsChanged: { delta in self.clients.withLock { $0 += delta } },
                eventsDropped: { count in self.dropped.withLock { $0.append(count) } })
        }
    }

    @Test func anAdmittedClientCountsUntilItLeaves() async throws {
        let tally = Tally()
        try await ServerHarness.with(observer: tally.observer) { harness in
            try await LineClient.with(path: harness.path) { client in
                _ = try await client.call(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#, expecting: StatusResult.self)
                #expect(tally.clients.withLock { $0 } == 1)
            }
            // The server notices the close on its own time: wait for it (bounded).
            try? await waitUntil("the server to count the close", seconds: 20) { tally.clients.withLock { $0 } == 0 }
            #expect(tally.clients.withLock { $0 } == 0)
        }
    }

    @Test func eachEventsDroppedNoticeIsCountedWithItsCount() async throws {
        let tally = Tally()
        try await ServerHarness.with(hubCapacity: 2, observer: tally.observer) { harness in
            for _ in 0..<5 { harness.publishRemoval() }
            try await LineClient.with(path: harness.path) { client in
                _ = try await client.subscribe(#"{"since":1}"#)
                #expect(try await client.receive() == .dropped(EventsDroppedParams(count: 3, firstSeq: 1, lastSeq: 3)))
                #expect(tally.dropped.withLock { $0 } == [3])
            }
        }
    }
}
