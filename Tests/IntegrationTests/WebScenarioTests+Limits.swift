import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension PCSCScenarioTests.WebScenarioTests {
    /// How far passtapd's resident memory may rise while one client floods pings and never reads
    /// (docs/web.md, "Limits against other local processes"). Before the pong limit it rose without
    /// bound: from 44 to 198 MiB in the 10 s (the debug build, 430 000 pings on one connection),
    /// and on while the flood went on; with it, by 2 MiB at most.
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

    /// Connections `nobody`'s flood holds or has under way: more than `[web] max_clients` (32)
    /// and the listener's old accept queue (32) together, less than its queue now (512).
    static let floodConnections = 256

    /// docs/web.md, "Limits against other local processes": `nobody` floods the web port with idle
    /// connections, opening a new one for each passtapd closes (`scripts/rig/tcp_flood.py`).
    /// Meanwhile a client with a valid token, as root, completes the handshake within a second,
    /// five times over, and its subscription gets the taps. (Before the per-user pool, the flood
    /// held every place of `max_clients` and the client's connection was closed as soon as it was
    /// accepted.)
    @Test(.enabled(if: getuid() == 0, "needs root to run the flood as another user"))
    func aReconnectingFloodFromAnotherUserNeverKeepsOutAClientWithAToken() throws {
        let port = try PCSCScenarioTests.MetricsScenarioTests.freePort()
        let vas = try Self.rig(port: port)
        defer { vas.stop() }
        let flood = try TCPFlood(port: port, connections: Self.floodConnections, reportEvery: 50, directory: vas.rig.directory)
        defer { flood.stop() }
        // The flood is under way: passtapd keeps closing its connections, which it replaces.
        try vas.rig.waitFor("passtapd to close 500 of nobody's web connections", timeout: 60) { flood.closed >= 500 || flood.hasExited() }
        #expect(!flood.hasExited(), "the flood stopped: \(flood.errors)")

        var clients: [WebSocketClient] = []
        var times: [String] = []
        for attempt in 1...5 {
            let start = Date()
            do {
                clients.append(try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos))
                let seconds = Date().timeIntervalSince(start)
                times.append(String(format: "%.3f s", seconds))
                #expect(seconds < 1, "attempt \(attempt): the handshake took \(seconds) s")
            } catch {
                Issue.record("attempt \(attempt): the client with a token could not authenticate during the flood: \(error)")
            }
        }
        let closedBefore = flood.closed
        if let till = clients.first {
            let subscribe = #"{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#
            #expect(try till.call(subscribe, id: 3, what: "the subscription")["result"] != nil)
            for tap in 1...2 {
                try vas.tap()
                let event = try till.readJSON(timeout: 15, what: "read.result of tap \(tap)") { $0["method"] as? String == "event" }
                let entry = PhoneRig.entry(in: try #require(event["params"] as? [String: Any]))
                #expect(entry?["message"] as? String == PhoneRig.message, "tap \(tap): \(event)")
            }
        }
        // The flood went on all along, and passtapd counted it under nobody's uid.
        #expect(flood.closed > closedBefore && !flood.hasExited(), "the flood stopped: \(flood.errors)")
        #expect(vas.rig.daemonLog.contains("peer.uid=65534"), "no refusal of nobody's connections logged")
        print("web flood: \(Self.floodConnections) connections from nobody, \(flood.closed) closed by passtapd; the till authenticated in \(times)")
    }
}
