import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension PCSCScenarioTests.WebScenarioTests {
    /// How far passtapd's resident memory may rise while one client floods pings and never reads
    /// (issue 29, section 2). Before the pong limit it rose without bound: from 44 to 198 MiB in
    /// the 10 s (the debug build, 430 000 pings on one connection), and on while the flood went on;
    /// with it, by 2 MiB at most.
    static let pingFloodGrowthKiB = 16 * 1024

    /// An authenticated, subscribed client (no idle close) sends pings for 10 s and never reads,
    /// connecting again each time passtapd closes it: passtapd's resident memory stays within
    /// ``pingFloodGrowthKiB`` of where it started, and the connections are closed once their pings
    /// go unanswered.
    @Test func aPingFloodThatNeverReadsLeavesTheDaemonsMemoryBounded() throws {
        let port = try PCSCScenarioTests.MetricsScenarioTests.freePort()
        let vas = try Self.rig(port: port)
        defer { vas.stop() }
        let pid = vas.rig.daemonPID
        let subscribe = #"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#
        // A batch of pings with the largest payload a control frame may carry (125 bytes).
        let ping = WebSocketClient.frame(opcode: 0x9, payload: Array(repeating: 0x2A, count: 125))
        let batch = Array((0..<256).map { _ in ping }.joined())

        let before = try ProcessFigures.of(pid)
        var peak = before.residentKiB
        var sent = 0
        var closes: [Double] = []
        let start = Date()
        var lastSample = start
        flooding: while Date().timeIntervalSince(start) < 10 {
            let flood = try Self.authenticated(port: port, secret: Self.wallSecret, origin: Self.pos)
            #expect(try flood.call(subscribe, id: 2, what: "the subscription")["result"] != nil)
            var pending = batch[...]
            while Date().timeIntervalSince(start) < 10 {
                switch flood.trySend(Array(pending), timeout: 0.1) {
                case .sent(let count):
                    sent += count
                    pending = pending.dropFirst(count)
                    if pending.isEmpty { pending = batch[...] }
                case .wouldBlock:
                    break
                case .closed:
                    closes.append(Date().timeIntervalSince(start))
                    continue flooding
                }
                if Date().timeIntervalSince(lastSample) >= 0.1 {
                    lastSample = Date()
                    peak = max(peak, try ProcessFigures.of(pid).residentKiB)
                    // Far past the bound: stop before the machine runs short.
                    if peak - before.residentKiB > 1024 * 1024 { break flooding }
                }
            }
        }
        let after = try ProcessFigures.of(pid)
        peak = max(peak, after.residentKiB)
        print(
            "ping flood: \(sent / ping.count) pings in 10 s, passtapd \(ProcessFigures.residentChange(before, after)), peak +\(String(format: "%.1f", Double(peak - before.residentKiB) / 1024)) MiB, \(closes.count) connections closed, the first after \(closes.first.map { String(format: "%.2f s", $0) } ?? "never")"
        )
        #expect(peak - before.residentKiB <= Self.pingFloodGrowthKiB, "passtapd grew from \(before.residentKiB) KiB to \(peak) KiB")
        // The close frame (1008) waits behind the pongs the client never read, and is lost with
        // them when the connection closes: the unit test checks the frame, this the close.
        #expect(!closes.isEmpty, "passtapd never closed a flooding connection")
        #expect(Rig.isAlive(pid))
    }
}
