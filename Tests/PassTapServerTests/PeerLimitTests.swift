import Foundation
import ISO7816
import InMemoryLogging
import Logging
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import Testing

/// `[socket] max_clients_per_uid`, `idle_timeout_ms` and `vas_reads_per_uid`: what one peer can
/// make the daemon hold. (Every client here is this process's user.)
@Suite(.timeLimit(.minutes(1))) struct PeerLimitTests {
    private static let status = #"{"jsonrpc":"2.0","id":1,"method":"status"}"#
    private static func vasRead(_ id: Int, reader: String = "pcsc:Zeta Reader 00 00") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"vas.read","params":{"reader":"\#(reader)","timeout_ms":600000}}"#
    }

    @Test func aUserOverItsConnectionLimitIsRefusedWhileOthersSlotsStayFree() async throws {
        try await ServerHarness.with(configure: { $0.socket.maxClientsPerUID = 2 }) { harness in
            try await LineClient.with(path: harness.path) { first in
                try await LineClient.with(path: harness.path) { second in
                    #expect(try await first.call(Self.status, expecting: StatusResult.self).id == .number(1))
                    #expect(try await second.call(Self.status, expecting: StatusResult.self).id == .number(1))
                    try await LineClient.with(path: harness.path) { third in
                        let refusal = try await third.read(JSONRPCResponse<JSONRPCNoResult>.self)
                        guard case .failure(let error) = refusal.outcome else {
                            Issue.record("the user's third connection was served")
                            return
                        }
                        #expect(error.code == .tooManyClients)
                        #expect(error.message.contains("max_clients_per_uid"))
                        #expect(try await third.nextLine() == nil)
                    }
                }
            }
            // Both slots are given back: a new connection is served (they free asynchronously).
            let deadline = ContinuousClock.now + .seconds(10)
            var served = false
            while !served, ContinuousClock.now < deadline {
                let answer = try? await LineClient.with(path: harness.path) { client in
                    try await client.call(Self.status, expecting: StatusResult.self)
                }
                served = (try? answer?.outcome.get()) != nil
            }
            #expect(served)
        }
    }

    @Test func aUserMayHaveOneVASReadWaitingPerReader() async throws {
        let memory = InMemoryLogHandler()
        let logger = Logger(label: "passtap.test.server") { _ in memory }
        try await ServerHarness.with(configure: { $0.enableVAS(merchants: ["pass.com.example.coffee"]) }, logger: logger) { harness in
            try await LineClient.with(path: harness.path) { first in
                try await LineClient.with(path: harness.path) { second in
                    try first.sendLine(Self.vasRead(1))
                    try await harness.waitForVASReads(1, on: ServerHarness.readers[0].id)
                    let refused = try await second.call(Self.vasRead(2), expecting: VASReadResult.self)
                    guard case .failure(let error) = refused.outcome else {
                        Issue.record("a second vas.read of the same user on the same reader was queued")
                        return
                    }
                    #expect(error.code == .busy && error.code.rawValue == -32016)
                    #expect(error.message.contains("vas_reads_per_uid"))
                    // Another reader is another count.
                    try second.sendLine(Self.vasRead(3, reader: "pcsc:Alpha Reader 00 00"))
                    try await harness.waitForVASReads(1, on: ServerHarness.readers[1].id)
                    for reader in ServerHarness.readers.map(\.id) {
                        let tap = try #require(harness.vasReads.claim(reader: reader))
                        harness.vasReads.finish(tap, with: PassReadQueueingTests.tap("3B04"))
                    }
                    #expect(try await first.read(JSONRPCResponse<VASReadResult>.self).id == .number(1))
                    #expect(try await second.read(JSONRPCResponse<VASReadResult>.self).id == .number(3))
                    // The first read is answered, so the user may wait on Zeta again.
                    try first.sendLine(Self.vasRead(4))
                    try await harness.waitForVASReads(1, on: ServerHarness.readers[0].id)
                    let tap = try #require(harness.vasReads.claim(reader: ServerHarness.readers[0].id))
                    harness.vasReads.finish(tap, with: PassReadQueueingTests.tap("3B05"))
                    #expect(try await first.read(JSONRPCResponse<VASReadResult>.self).id == .number(4))
                }
            }
        }
        // One audit line per vas.read, with who and where, and never the card's data.
        let audits = memory.entries.filter { $0.message == "audit" }
        #expect(audits.count == 4)
        #expect(audits.allSatisfy { $0.level == .notice && $0.metadata["audit.method"] == "vas.read" })
        #expect(audits.allSatisfy { $0.metadata["peer.uid"] == "\(getuid())" && $0.metadata["peer.pid"] == "\(getpid())" })
        #expect(audits.map { $0.metadata["audit.outcome"] } == ["busy", "ok", "ok", "ok"])
        #expect(Set(audits.compactMap { $0.metadata["audit.reader"]?.description }) == ["pcsc:Zeta Reader 00 00", "pcsc:Alpha Reader 00 00"])
        #expect(!audits.contains { "\($0.metadata)".contains("3B0") })
    }

    /// A client that goes away gives its user's vas.read slot back: the same user may wait
    /// again (the slot frees once the server has noticed the close, so this retries on busy).
    @Test func aVASReadWhoseClientLeftGivesItsSlotBack() async throws {
        try await ServerHarness.with(configure: { $0.enableVAS(merchants: ["pass.com.example.coffee"]) }) { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(Self.vasRead(1))
                try await harness.waitForVASReads(1, on: ServerHarness.readers[0].id)
            }
            let short = #"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":20}}"#
            let deadline = ContinuousClock.now + .seconds(10)
            var outcome: JSONRPCErrorCode?
            repeat {
                let answer = try await LineClient.with(path: harness.path) { client in
                    try await client.call(short, expecting: VASReadResult.self)
                }
                if case .failure(let error) = answer.outcome { outcome = error.code }
            } while outcome == .busy && ContinuousClock.now < deadline
            #expect(outcome == .timeout)
        }
    }

    @Test func anIdleConnectionIsClosedButASubscriberAndAWaitingVASReadAreNot() async throws {
        let configure: (inout Configuration) -> Void = {
            // Long enough that a loaded CI machine connects and sends a first request within it;
            // each client below sends its request right after connecting.
            $0.socket.idleTimeoutMilliseconds = 3000
            $0.enableVAS(merchants: ["pass.com.example.coffee"])
        }
        try await ServerHarness.with(configure: configure) { harness in
            try await LineClient.with(path: harness.path) { subscriber in
                try subscriber.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
                try await LineClient.with(path: harness.path) { reading in
                    try reading.sendLine(Self.vasRead(2))
                    _ = try await subscriber.read(JSONRPCResponse<EventsSubscribeResult>.self)
                    try await harness.waitForVASReads(1, on: ServerHarness.readers[0].id)
                    // A client that connects and stays silent is told why, then closed.
                    try await LineClient.with(path: harness.path) { idle in
                        let notice = try await idle.read(JSONRPCResponse<JSONRPCNoResult>.self)
                        #expect(notice.id == .null)
                        guard case .failure(let error) = notice.outcome else {
                            Issue.record("the idle client got a result")
                            return
                        }
                        #expect(error.code == .idleTimeout && error.code.rawValue == -32015)
                        #expect(error.message.contains("idle_timeout_ms"))
                        #expect(try await idle.nextLine() == nil)
                    }
                    // Longer than the idle timeout later, the subscriber still streams...
                    let event = harness.publishRemoval()
                    let notification = try await subscriber.read(JSONRPCNotification<Event>.self)
                    #expect(notification.params.seq == event.seq)
                    // ...and the waiting vas.read is still answered.
                    let tap = try #require(harness.vasReads.claim(reader: ServerHarness.readers[0].id))
                    harness.vasReads.finish(tap, with: PassReadQueueingTests.tap("3B06"))
                    #expect(try await reading.read(JSONRPCResponse<VASReadResult>.self).id == .number(2))
                }
            }
        }
    }
}
