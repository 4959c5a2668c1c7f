import Foundation
import PassTapTestNetwork
import Testing
import VAS

#if canImport(Glibc)
import Glibc
import Wallets
import VASSettings
#endif

/// The libnfc backend through the real stack: libnfc 1.8's own `pn532_uart` driver talking to our
/// emulated PN532 on a pseudo-terminal (`scripts/rig/pn532_emulator.py`), whose target is the
/// same virtual card and virtual iPhone the vpcd rig uses, and the built passtapd, seen by a
/// socket client. No pcscd: these run beside the PC/SC scenarios (one libnfc client per emulator).
@Suite(.serialized) struct LibNFCScenarioTests {
    static let coffee = "pass.com.example.coffee"

    /// passtapd with only the libnfc backend, on the rig's emulator, and `extra` TOML.
    static func config(_ extra: String = "", ecp: String = "auto", rearmMilliseconds: Int = 1000) -> String {
        """
        [pcsc]
        enabled = false
        [libnfc]
        enabled = true
        devices = ["pn532_uart:{rig}/pn532"]
        ecp = "\(ecp)"
        rearm_ms = \(rearmMilliseconds)
        \(extra)
        """
    }

    /// VAS on, in `mode`, for the coffee merchant (key `coffee.pem` in the rig's folder).
    static func vas(mode: String) -> String {
        """
        [session]
        aids = ["A0000000041010"]
        [vas]
        enabled = true
        mode = "\(mode)"
        [[vas.merchants]]
        pass_type_id = "\(coffee)"
        keys = ["coffee.pem"]
        """
    }

    /// Writes the coffee key and a phone holding the coffee pass (`requires_ecp` as given).
    static func preparePhone(requiresECP: Bool) -> (URL) throws -> Void {
        { folder in
            let key = MerchantKey.generate()
            try key.write(toFile: folder.appendingPathComponent("coffee.pem").path, format: .sec1)
            let phone: [String: Any] = [
                "requires_ecp": requiresECP, "ecp_cycles": 2,
                "passes": [["pass_type_id": coffee, "key": folder.appendingPathComponent("coffee.pem").path, "message": "member 0042"]],
            ]
            try JSONSerialization.data(withJSONObject: phone).write(to: folder.appendingPathComponent("phone.json"))
        }
    }

    static func event(_ client: LineClient, _ kind: String, timeout: Double = 10) throws -> [String: Any] {
        let message = try client.readJSON(timeout: timeout, what: kind) { message in
            (message["params"] as? [String: Any])?["kind"] as? String == kind
        }
        return message["params"] as! [String: Any]
    }

    /// The host frames the emulator recorded (PN532 commands, `D4` first), in hex.
    static func hostFrames(_ rig: Rig) throws -> [String] {
        let frames = try #require(try rig.emulatorCommand("frames")["frames"] as? [[String: Any]])
        return frames.filter { $0["dir"] as? String == "host" }.compactMap { $0["hex"] as? String }
    }

    /// The host frames once `done` holds for them (the daemon lets the target go after it
    /// publishes `read.result`, so its last frames may still be on their way).
    static func hostFrames(_ rig: Rig, until done: ([String]) -> Bool) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let frames = try hostFrames(rig)
            if done(frames) { return frames }
            guard Date() < deadline else { return frames }
            usleep(20_000)
        }
    }

    /// Whether `frames` has a field drop (RFConfiguration field off) after the last exchange.
    static func droppedFieldAfterLastExchange(_ frames: [String]) -> Bool {
        guard let last = frames.lastIndex(where: { $0.hasPrefix("D440") }) else { return false }
        return frames[(last + 1)...].contains("D4320100")
    }

    /// An nfc-only daemon says its backend is up (`backend.up` once libnfc initialises), and
    /// `passtap status` shows `backend nfc: up`, not `unknown`; so does `/metrics`.
    @Test func theNFCBackendReportsUpAndStatusSaysSo() throws {
        typealias Metrics = PCSCScenarioTests.MetricsScenarioTests
        let port = try Metrics.freePort()
        let rig = try Rig(
            config: Self.config("[session]\naids = [\"A0000000041010\"]\n[metrics]\nlisten = \"127.0.0.1:\(port)\""), pcscd: false,
            emulatorArguments: [])
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(since: 1, kinds: ["backend.up", "backend.down"])
        let up = try Self.event(client, "backend.up")
        #expect(up["backend"] as? String == "nfc" && up["reason"] is NSNull, "\(up)")
        try rig.waitForReader(state: "empty")
        let status = try Spawned.finish(Rig.binaries.appendingPathComponent("passtap").path, ["status", "--socket", rig.socketPath], deadline: 20)
        #expect(status.output.contains("backend nfc: up\n"), "\(status.output)")
        // Healthy, or degraded only by this machine's clock: never down for the backend.
        #expect(status.status != 2 && !status.output.contains("backend nfc is down"), "\(status.output)")
        let json = try Spawned.finish(Rig.binaries.appendingPathComponent("passtap").path, ["status", "--json", "--socket", rig.socketPath], deadline: 20)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect(answer["backends"] as? [NSDictionary] == [["name": "nfc", "up": true, "reason": NSNull()]], "\(json.output)")
        let scraped = try Metrics.scrape(port)
        #expect(Metrics.value(scraped, "passtap_backend_up", ["backend": "nfc"]) == 1, "\(scraped)")
    }

    @Test func anIPhoneThatNeedsECPGivesItsPassAndTheFramesCarryTheModeByte() throws {
        let rig = try Rig(
            config: Self.config(Self.vas(mode: "vas_only")), pcscd: false, emulatorArguments: ["--phone", "{rig}/phone.json"],
            prepare: Self.preparePhone(requiresECP: true))
        defer { rig.stop() }
        let (client, _) = try rig.subscriber()
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("tap")
        let inserted = try Self.event(client, "card.inserted")
        #expect(inserted["reader"] as? String == rig.nfcReaderID)
        let uid = try #require(inserted["uid"] as? String)
        #expect(uid.count == 8 && uid.hasPrefix("08"), "a phone's random 4-byte UID: \(uid)")
        #expect(inserted["atqa"] as? String == "0004")
        #expect(inserted["sak"] as? String == "20")
        #expect(inserted["ats"] is String)

        let result = try Self.event(client, "read.result")
        #expect(result["target"] as? String == "iso_dep")
        #expect(result["error"] is NSNull, "\(result)")
        let vas = try #require(result["vas"] as? [String: Any], "\(result)")
        #expect(vas["offered"] as? Bool == true)
        #expect(vas["mode"] as? String == "vas_only")
        let entries = try #require(vas["entries"] as? [[String: Any]])
        #expect(entries.first?["status"] as? String == "success")
        #expect(entries.first?["message"] as? String == "member 0042")

        let frames = try Self.hostFrames(rig, until: Self.droppedFieldAfterLastExchange)
        // InCommunicateThru (D4 42) with the VAS-only frame 6A 01 00 00 02; the chip adds CRC_A.
        #expect(frames.contains("D4426A01000002"), "\(frames.filter { $0.hasPrefix("D442") })")
        #expect(!frames.contains { $0.hasPrefix("D4426A") && $0 != "D4426A01000002" })
        // The session ends with S(DESELECT) (InDeselect) and a field drop (RFConfiguration field off).
        let lastExchange = try #require(frames.lastIndex { $0.hasPrefix("D440") })
        let after = frames[(lastExchange + 1)...]
        let deselect = try #require(after.firstIndex { $0.hasPrefix("D444") }, "no InDeselect after the session: \(Array(after.prefix(8)))")
        #expect(frames[deselect...].contains { $0 == "D4320100" }, "no field drop after the DESELECT")
    }

    @Test func withECPOffTheVASSelectGets6A82AndThePaymentApplicationStillSelects() throws {
        let rig = try Rig(
            config: Self.config(Self.vas(mode: "vas_or_payment"), ecp: "off"), pcscd: false,
            emulatorArguments: ["--phone", "{rig}/phone.json"], prepare: Self.preparePhone(requiresECP: true))
        defer { rig.stop() }
        let (client, _) = try rig.subscriber()
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("tap")
        let result = try Self.event(client, "read.result")
        let vas = try #require(result["vas"] as? [String: Any], "\(result)")
        #expect(vas["offered"] as? Bool == false, "\(vas)")
        #expect((vas["problem"] as? String)?.contains("6A82") == true, "\(vas)")
        let aid = try #require(result["aid"] as? [String: Any])
        #expect(aid["selected"] as? String == "A0000000041010")
        #expect(try !Self.hostFrames(rig).contains { $0.hasPrefix("D4426A") }, "ECP sent with ecp = off")
    }

    /// docs/vas-protocol.md §4.3: after a read that failed on the radio, VAS-and-payment modes
    /// must not DESELECT (the phone would stop routing to VAS); VAS only may. Both drop the field.
    @Test(arguments: [("vas_or_payment", false), ("vas_and_payment", false), ("vas_only", true)])
    func aPhonePulledMidSessionGetsNoDeselectInTheVASAndPaymentModes(mode: String, deselects: Bool) throws {
        let rig = try Rig(
            config: Self.config(Self.vas(mode: mode)), pcscd: false,
            emulatorArguments: ["--phone", "{rig}/phone.json"], prepare: Self.preparePhone(requiresECP: true))
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["read.result", "card.removed"])
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("pull-after 2")
        try rig.emulatorCommand("tap")
        let result = try Self.event(client, "read.result")
        let error = try #require(result["error"] as? [String: Any], "\(result)")
        #expect(["card_removed", "timeout"].contains(error["code"] as? String ?? ""), "\(error)")
        _ = try Self.event(client, "card.removed")
        let frames = try Self.hostFrames(rig, until: Self.droppedFieldAfterLastExchange)
        let failed = try #require(frames.lastIndex { $0.hasPrefix("D440") })
        let after = Array(frames[(failed + 1)...])
        let fieldOff = try #require(after.firstIndex(of: "D4320100"), "no field drop after the failed read: \(after.prefix(8))")
        #expect(after[..<fieldOff].contains { $0.hasPrefix("D444") } == deselects, "\(mode): \(after.prefix(fieldOff + 1))")
        #expect(Rig.isAlive(rig.daemonPID))
    }

    @Test func aMemoryTagGetsItsIdentityAndNoSession() throws {
        let rig = try Rig(config: Self.config("[session]\naids = [\"A0000000041010\"]"), pcscd: false, emulatorArguments: ["--profile", "memory-ultralight"])
        defer { rig.stop() }
        let (client, _) = try rig.subscriber()
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("clear")
        try rig.emulatorCommand("tap")
        let result = try Self.event(client, "read.result")
        #expect(result["target"] as? String == "memory")
        #expect(result["uid"] as? String == "04A23C1A7F2D80")
        #expect(result["atqa"] as? String == "0044")
        #expect(result["sak"] as? String == "00")
        #expect(result["ats"] is NSNull)
        #expect(result["atr"] as? String == "3B8F8001804F0CA0000003060300030000000068")
        #expect(result["aid"] is NSNull && result["vas"] is NSNull && result["error"] is NSNull)
        // A Type 2 tag's pages are read (READ, `30 page`, in InDataExchange): that, and nothing
        // else, goes to it; no SELECT or other APDU.
        let ndef = try #require(result["ndef"] as? [String: Any], "\(result)")
        #expect(ndef["tag_type"] as? String == "type2", "\(ndef)")
        let exchanges = try Self.hostFrames(rig).filter { $0.hasPrefix("D440") }
        #expect(!exchanges.isEmpty && exchanges.allSatisfy { $0.hasPrefix("D4400130") }, "not only page reads: \(exchanges)")
    }

    @Test func theDeviceVanishesAndComesBackAndTheNextTapIsRead() throws {
        let rig = try Rig(config: Self.config("[session]\naids = [\"A0000000041010\"]"), pcscd: false, emulatorArguments: [])
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["reader.added", "reader.removed", "read.result"])
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("vanish")
        let removed = try Self.event(client, "reader.removed")
        #expect(removed["reader"] as? String == rig.nfcReaderID)
        try rig.emulatorCommand("reappear")
        let added = try Self.event(client, "reader.added", timeout: 15)
        #expect(added["reader"] as? String == rig.nfcReaderID)
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("tap")
        let result = try Self.event(client, "read.result")
        #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(result)")
        #expect(Rig.isAlive(rig.daemonPID))
    }

    /// libnfc reports a garbled frame as `NFC_EIO`, as it does an unplug: a device still there is
    /// not lost, and a glitch or two neither removes the reader nor marks it unavailable.
    @Test func garbledFramesOnTheLineNeitherRemoveTheReaderNorLoseTheNextTap() throws {
        let rig = try Rig(config: Self.config("[session]\naids = [\"A0000000041010\"]"), pcscd: false, emulatorArguments: [])
        defer { rig.stop() }
        try rig.waitForReader(state: "empty")
        let (client, _) = try rig.subscriber(kinds: ["reader.added", "reader.changed", "reader.removed", "read.result"])
        try rig.emulatorCommand("garble 2")
        // Wait until both bad frames went out and the reader polled on.
        let deadline = Date().addingTimeInterval(10)
        var stats = try rig.emulatorCommand("stats")
        let polledBefore = stats["polls"] as? Int ?? 0
        while (stats["garbled"] as? Int ?? 0) < 2 || (stats["polls"] as? Int ?? 0) < polledBefore + 3 {
            guard Date() < deadline else { throw Rig.Failure(description: "the reader stopped polling: \(stats)\n\(rig.daemonLog)") }
            usleep(20_000)
            stats = try rig.emulatorCommand("stats")
        }
        try rig.emulatorCommand("tap")
        // Nothing happened to the reader in between: the first reader event is the tap's read.
        let next = try client.readJSON(timeout: 10, what: "the next event") { _ in true }
        let result = try #require(next["params"] as? [String: Any])
        #expect(result["kind"] as? String == "read.result", "\(result)\n\(rig.daemonLog)")
        #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(result)")
    }

    @Test func aPhoneRestingFiveSecondsIsReadOnceAndRemovedRearmLaterAndReadAgainWhenPresentedAgain() throws {
        let rig = try Rig(
            config: Self.config(Self.vas(mode: "vas_or_payment"), rearmMilliseconds: 600), pcscd: false,
            emulatorArguments: ["--phone", "{rig}/phone.json"], prepare: Self.preparePhone(requiresECP: true))
        defer { rig.stop() }
        let (client, _) = try rig.subscriber(kinds: ["card.inserted", "read.result", "card.removed"])
        try rig.waitForReader(state: "empty")
        try rig.emulatorCommand("tap")
        _ = try Self.event(client, "card.inserted")
        _ = try Self.event(client, "read.result")
        // Five seconds on the reader: the phone keeps answering the polls with new UIDs, and no
        // event at all may come (the line wait must time out).
        #expect(throws: (any Error).self) {
            _ = try client.readJSON(timeout: 5, what: "any event while the phone rests") { _ in true }
        }
        let selects = try #require(try rig.emulatorCommand("stats")["selects"] as? Int)
        #expect(selects > 10, "the phone was polled \(selects) times while resting")
        try rig.emulatorCommand("remove")
        _ = try Self.event(client, "card.removed", timeout: 5)
        // Presented again: a new tap.
        try rig.emulatorCommand("tap")
        _ = try Self.event(client, "card.inserted")
        let again = try Self.event(client, "read.result")
        #expect(((again["vas"] as? [String: Any])?["entries"] as? [[String: Any]])?.first?["status"] as? String == "success")
    }
}

extension PCSCScenarioTests {
    /// Both backends in one daemon: a card on the vpcd reader and one on the emulated PN532.
    @Suite(.serialized) struct MixedBackendScenarioTests {
        @Test func pcscAndLibNFCReadersWorkInTheSameDaemonAtTheSameTime() throws {
            let config = """
                [libnfc]
                enabled = true
                devices = ["pn532_uart:{rig}/pn532"]
                [session]
                aids = ["A0000000041010"]
                """
            let rig = try Rig(config: config, emulatorArguments: [])
            defer { rig.stop() }
            let (client, _) = try rig.subscriber(kinds: ["read.result"])
            try rig.waitForReader(state: "empty")
            try rig.cardCommand("tap")
            try rig.emulatorCommand("tap")
            var readers: Set<String> = []
            for _ in 0..<2 {
                let result = try LibNFCScenarioTests.event(client, "read.result")
                #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(result)")
                readers.insert(result["reader"] as? String ?? "?")
            }
            #expect(readers == [rig.readerID, rig.nfcReaderID])
        }
    }
}
