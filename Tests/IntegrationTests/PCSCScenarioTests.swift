import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a socket client sees when people tap cards on a real pcscd + vpcd reader.
/// One pcscd per machine: these scenarios run one at a time.
@Suite(.serialized) struct PCSCScenarioTests {
    static let config = """
        allow_transmit = true
        [session]
        aids = ["A0000000031010", "A0000000041010"]
        """

    private func event(_ client: LineClient, _ kind: String, timeout: Double = 10) throws -> [String: Any] {
        let message = try client.readJSON(timeout: timeout, what: kind) { message in
            (message["params"] as? [String: Any])?["kind"] as? String == kind
        }
        return message["params"] as! [String: Any]
    }

    @Test func tapGivesInsertedThenReadResultInConfiguredOrderThenRemoved() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        let (client, _) = try rig.subscriber()
        try rig.cardCommand("tap")
        let inserted = try event(client, "card.inserted")
        #expect(inserted["reader"] as? String == rig.readerID)
        #expect(inserted["uid"] as? String == "04A1B2C3D4E5F6")
        #expect((inserted["atr"] as? String)?.hasPrefix("3B") == true)
        #expect(inserted["atqa"] is NSNull && inserted["sak"] is NSNull && inserted["ats"] is NSNull)

        let result = try event(client, "read.result")
        let aid = try #require(result["aid"] as? [String: Any])
        #expect(aid["selected"] as? String == "A0000000041010")
        let attempts = try #require(aid["attempts"] as? [[String: Any]])
        #expect(attempts.map { $0["aid"] as? String } == ["A0000000031010", "A0000000041010"])
        #expect(attempts.map { $0["sw"] as? String } == ["6A82", "9000"])
        #expect((aid["fci"] as? [String: Any])?["hex"] as? String == "6F1A8407A0000000041010A50F500A4D617374657243617264870101")
        #expect((aid["fci"] as? [String: Any])?["redacted"] is NSNull)
        #expect(result["vas"] is NSNull, "VAS is off in this config: \(result)")
        #expect(result["error"] is NSNull)
        #expect((result["seq"] as? Int ?? 0) > (inserted["seq"] as? Int ?? .max))

        try rig.cardCommand("remove")
        let removed = try event(client, "card.removed")
        #expect(removed["reader"] as? String == rig.readerID)
    }

    @Test func reconnectingWithSinceReplaysWhatWasMissedWithNoGapAndNoDuplicate() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        var (client, _) = try rig.subscriber()
        // Sees what the daemon publishes while the client is away, to know when both taps are in.
        let (watcher, _) = try rig.subscriber(kinds: ["card.removed"])
        try rig.cardCommand("tap-for 1200")
        let firstResult = try event(client, "card.removed")
        let lastSeen = try #require(firstResult["seq"] as? Int)
        _ = try event(watcher, "card.removed")
        client = try LineClient(path: rig.socketPath)  // the old connection is dropped here

        // Two taps happen while the client is away.
        try rig.cardCommand("tap-for 1200")
        try rig.cardCommand("tap-for 1200")
        for _ in 0..<2 { _ = try event(watcher, "card.removed") }

        let (again, subscribed) = try rig.subscriber(since: UInt64(lastSeen + 1))
        let nextSeq = try #require(subscribed["next_seq"] as? Int)
        #expect(nextSeq >= lastSeen + 7)
        var seqs: [Int] = []
        var kinds: [String] = []
        while seqs.last.map({ $0 < nextSeq - 1 }) ?? true {
            let message = try again.readJSON(what: "replayed events") { $0["method"] as? String == "event" }
            let params = try #require(message["params"] as? [String: Any])
            seqs.append(try #require(params["seq"] as? Int))
            kinds.append(try #require(params["kind"] as? String))
        }
        #expect(seqs == Array((lastSeen + 1)..<nextSeq))
        #expect(kinds.filter { $0 == "read.result" }.count == 2)
        // Then the live stream continues right after the replay.
        try rig.cardCommand("tap-for 1200")
        let live = try event(again, "card.inserted")
        #expect(live["seq"] as? Int == nextSeq)
    }

    @Test func pcscdKilledAndRestartedIsReportedAndTheNextTapReads() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        let (client, _) = try rig.subscriber()
        try rig.killPcscd()
        let down = try event(client, "backend.down")
        #expect(down["backend"] as? String == "pcsc")
        try rig.restartPcscd()
        _ = try event(client, "backend.up", timeout: 20)
        let added = try event(client, "reader.added")
        #expect((added["reader"] as? String)?.hasPrefix("pcsc:Virtual PCD") == true)
        try rig.cardCommand("tap-for 1200")
        let result = try event(client, "read.result")
        #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
        #expect(result["error"] is NSNull)
    }

    @Test func daemonStartedBeforePcscdReportsItDownThenReadsOnceItComes() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        rig.stopDaemon()
        try rig.killPcscd()
        try rig.startDaemon(config: Self.config)
        let (client, _) = try rig.subscriber(since: 1)
        let down = try event(client, "backend.down")
        #expect(down["seq"] as? Int == 1)
        try rig.restartPcscd()
        _ = try event(client, "backend.up", timeout: 20)
        _ = try event(client, "reader.added")
        try rig.cardCommand("tap-for 1200")
        let result = try event(client, "read.result")
        #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
    }

    @Test func cardPulledMidSessionGivesAReadResultErrorAndTheNextTapReads() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["read.result"])
        // APDU 1 is the UID read, APDU 2 the first SELECT: the card leaves while it is sent.
        try rig.cardCommand("pull-after 2")
        try rig.cardCommand("tap")
        let broken = try event(client, "read.result")
        let error = try #require(broken["error"] as? [String: Any])
        #expect(error["code"] as? String == "card_removed")
        #expect((broken["aid"] as? [String: Any])?["selected"] is NSNull)
        try rig.cardCommand("remove")

        try rig.cardCommand("tap-for 1200")
        let good = try event(client, "read.result")
        #expect(good["error"] is NSNull)
        #expect((good["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
    }

    @Test func garbageAndOversizedLinesCostOnlyTheirSenderWhileOthersKeepReceiving() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        let (watcher, _) = try rig.subscriber(kinds: ["read.result"])

        let garbage = try LineClient(path: rig.socketPath)
        try garbage.sendLine("this is not json {")
        let parseError = try garbage.readJSON(what: "the parse error") { $0["error"] != nil }
        #expect((parseError["error"] as? [String: Any])?["code"] as? Int == -32700)
        try garbage.sendLine(#"{"jsonrpc":"2.0","id":7,"method":"status"}"#)
        let status = try garbage.readJSON(what: "status after garbage") { $0["id"] as? Int == 7 }
        #expect((status["result"] as? [String: Any])?["version"] is String)

        let huge = try LineClient(path: rig.socketPath)
        try? huge.send(String(repeating: "x", count: 70 * 1024) + "\n")
        #expect(huge.isClosedByPeer())

        try rig.cardCommand("tap-for 1200")
        let result = try event(watcher, "read.result")
        #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
    }

    @Test func transmitThroughTheSocketAndTheCLIReachesTheCard() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["read.result"])
        try rig.cardCommand("tap")
        _ = try event(client, "read.result")

        let output = try Rig.run(
            Rig.binaries.appendingPathComponent("passtap").path,
            ["apdu", "--socket", rig.socketPath, "--json", "PCD 00 00", "00a4040007a0000000041010"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(answer["sw"] as? String == "9000")
        #expect(answer["response"] as? String == "6F1A8407A0000000041010A50F500A4D617374657243617264870101")

        let missing = try Rig.run(
            Rig.binaries.appendingPathComponent("passtap").path,
            ["apdu", "--socket", rig.socketPath, "--json", "PCD 00 00", "00a4040007a0000000031010"])
        #expect(missing.contains("\"sw\":\"6A82\""))
        try rig.cardCommand("remove")
    }

    /// `passtap shell` outlives the daemon's idle timeout: each APDU goes on a connection of its
    /// own. The pause is measured by an event (an idle connection opened with it is closed), not
    /// by a sleep.
    @Test func theShellAnswersAfterLongerThanTheIdleTimeout() throws {
        let rig = try Rig(config: "idle_timeout_ms = 1000\n" + Self.config)
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["read.result"])
        try rig.cardCommand("tap")
        _ = try event(client, "read.result")

        let input = rig.directory.appendingPathComponent("shell.in").path
        let output = rig.directory.appendingPathComponent("shell.out").path
        #expect(mkfifo(input, 0o600) == 0)
        let shell = "exec '\(Rig.binaries.appendingPathComponent("passtap").path)' shell --socket '\(rig.socketPath)' 'PCD 00 00' < '\(input)'"
        let process = try Spawned.start("/bin/sh", ["-c", shell], stdout: output, stderr: output)
        let writer = open(input, O_WRONLY)
        #expect(writer >= 0)
        func type(_ line: String) { _ = (line + "\n").withCString { write(writer, $0, strlen($0)) } }
        func answers() -> Int {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").components(separatedBy: "9000").count - 1
        }

        type("00a4040007a0000000041010")
        try rig.waitFor("the shell's first answer") { answers() == 1 }
        let idle = try LineClient(path: rig.socketPath)
        let notice = try idle.readJSON(timeout: 10, what: "the idle connection's notice") { _ in true }
        #expect((notice["error"] as? [String: Any])?["code"] as? Int == -32015)
        type("00a4040007a0000000041010")
        try rig.waitFor("the shell's second answer") { answers() == 2 }
        close(writer)
        #expect(process.wait(seconds: 10) == (0, true))
        try rig.cardCommand("remove")
    }

    @Test func aCardOnTheSecondReaderIsReadAndReportedForThatReader() throws {
        let rig = try Rig(config: Self.config, secondCardArguments: [])
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["card.inserted", "read.result", "card.removed"])
        try rig.cardCommand("tap", card: 2)
        let inserted = try event(client, "card.inserted")
        #expect(inserted["reader"] as? String == rig.secondReaderID)
        let result = try event(client, "read.result")
        #expect(result["reader"] as? String == rig.secondReaderID)
        #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
        #expect(result["error"] is NSNull)
        try rig.cardCommand("remove", card: 2)
        let removed = try event(client, "card.removed")
        #expect(removed["reader"] as? String == rig.secondReaderID)
        #expect(try rig.cardCommand("stats")["taps"] as? Int == 0, "the first reader's card was tapped")
    }

    @Test func sigtermStopsWithinTwoSecondsAndRemovesTheSocket() throws {
        let rig = try Rig(config: Self.config)
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["card.inserted"])
        try rig.cardCommand("tap")
        _ = try event(client, "card.inserted")
        let seconds = rig.stopDaemon()
        #expect(seconds < 2)
        #expect(!FileManager.default.fileExists(atPath: rig.socketPath))
    }
}
