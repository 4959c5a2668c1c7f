import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import Testing

/// `vas.read` over the socket: the next tap answers every read waiting on its reader, and a
/// client that goes away while waiting gives up its place. The time limit turns a server that never lets a
/// waiting read go into a failure instead of a hang.
@Suite(.timeLimit(.minutes(1))) struct PassReadQueueingTests {
    static let reader = ServerHarness.readers[0].id
    static let merchants = ["pass.com.example.loyalty", "pass.com.example.coffee"]

    static func tap(_ atr: HexBytes) -> ReadResult {
        ReadResult(card: CardInfo(atr: atr, uid: "04A1B2"), target: .isoDep, session: SessionOutcome())
    }

    @Test func aClientThatDisconnectsWhileWaitingLeavesTheQueue() async throws {
        try await ServerHarness.with(configure: { $0.enableVAS(merchants: Self.merchants) }) { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(
                    #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","merchants":["pass.com.example.coffee"],"timeout_ms":600000}}"#)
                try await harness.waitForVASReads(1, on: Self.reader)
            }  // closes the connection with the read still waiting
            try await harness.waitForVASReads(0, on: Self.reader)
            let stale = harness.vasReads.claim(reader: Self.reader)
            #expect(stale == nil, "a tap was claimed for a client that is gone")
            if let stale { harness.vasReads.finish(stale, with: Self.tap("3B00")) }  // lets the server stop
        }
    }

    @Test func twoClientsWaitingOnOneReaderAreBothAnsweredByTheNextTap() async throws {
        // Both clients are this process's user: allow it two waiting reads.
        try await ServerHarness.with(configure: { $0.enableVAS(merchants: Self.merchants); $0.socket.vasReadsPerUID = 2 }) { harness in
            try await LineClient.with(path: harness.path) { first in
                try await LineClient.with(path: harness.path) { second in
                    try first.sendLine(
                        #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","merchants":["pass.com.example.coffee"],"timeout_ms":600000}}"#)
                    try await harness.waitForVASReads(1, on: Self.reader)
                    try second.sendLine(
                        #"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":600000}}"#)
                    try await harness.waitForVASReads(2, on: Self.reader)

                    let tap = try #require(harness.vasReads.claim(reader: Self.reader))
                    #expect(tap.count == 2)
                    #expect(tap.merchants == nil)  // the second asks every merchant
                    harness.vasReads.finish(tap, with: Self.tap("3B01"))
                    let answer1 = try await first.read(JSONRPCResponse<VASReadResult>.self)
                    #expect(answer1.id == .number(1))
                    let result1 = try answer1.outcome.get()
                    #expect(result1.reader == Self.reader)
                    #expect(result1.result.card.atr == "3B01")
                    #expect(result1.result.card.uid == "04A1B2")
                    let answer2 = try await second.read(JSONRPCResponse<VASReadResult>.self)
                    #expect(answer2.id == .number(2))
                    #expect(try answer2.outcome.get().result.card.atr == "3B01")
                    #expect(harness.vasReads.claim(reader: Self.reader) == nil)
                }
            }
        }
    }

    @Test func aClientsLaterRequestsAreAnsweredAfterItsVASReadInOrder() async throws {
        try await ServerHarness.with(configure: { $0.enableVAS(merchants: Self.merchants) }) { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine(
                    #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":600000}}"#)
                try await harness.waitForVASReads(1, on: Self.reader)
                try client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"status"}"#)
                let tap = try #require(harness.vasReads.claim(reader: Self.reader))
                harness.vasReads.finish(tap, with: Self.tap("3B03"))
                let answer1 = try await client.read(JSONRPCResponse<VASReadResult>.self)
                #expect(answer1.id == .number(1))
                #expect(try answer1.outcome.get().result.card.atr == "3B03")
                let answer2 = try await client.read(JSONRPCResponse<StatusResult>.self)
                #expect(answer2.id == .number(2))
                #expect(try answer2.outcome.get().instance == harness.daemon.instance)
            }
        }
    }
}
