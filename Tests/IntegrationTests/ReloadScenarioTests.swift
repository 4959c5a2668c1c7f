import ForwardSettings
import Foundation
import PassTapTestNetwork
import Testing
import VAS

#if canImport(Glibc)
import Glibc
import Wallets
#endif

extension Rig {
    /// Rewrites passtapd's config file with `config` (the rig's `[socket] path` first, as at
    /// start; `{rig}` is the rig's folder) and sends the running passtapd SIGHUP.
    func reload(config: String) throws {
        let file = directory.appendingPathComponent("passtapd.toml")
        let text = "[socket]\npath = \"\(socketPath)\"\n\(config.replacingOccurrences(of: "{rig}", with: directory.path))"
        try text.write(to: file, atomically: true, encoding: .utf8)
        guard daemonPID > 0, kill(daemonPID, SIGHUP) == 0 else { throw Failure(description: "cannot signal passtapd") }
    }

    /// The config file passtapd runs with.
    var configFile: String { directory.appendingPathComponent("passtapd.toml").path }
}

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// Live reload (SIGHUP) of the real passtapd, on the real pcscd with the vsmartcard-vpcd
    /// readers and our virtual iPhone: what a reload changes is used by the next tap, a broken file
    /// changes nothing, and subscribers stay connected with no gap in `seq`.
    @Suite(.serialized) struct ReloadScenarioTests {
        static let loyalty = PhoneRig.loyalty
        static let coffee = PhoneRig.coffee

        /// `[vas]` with the given merchants (each with its key file in the rig's folder, by its full
        /// path); `extra` adds `[session]` keys.
        static func vas(_ merchants: [String], extra: String = "") -> String {
            PhoneRig.config(merchants: merchants, session: "aids = [\"A0000000041010\"]\n\(extra)", keyFolder: "{rig}/")
        }

        /// A phone rig (the phone holds the coffee pass, encrypted for `coffee.pem`) with `config`;
        /// its ledger is subscribed from the first event, and nothing is read from it yet.
        static func rig(config: String) throws -> PhoneRig {
            try PhoneRig(config: config, waitForReader: false)
        }

        /// The first event of `kind` since `mark`, seen already or still to come.
        @discardableResult
        static func event(_ kind: String, since mark: Int, in ledger: EventLedger) throws -> [String: Any] {
            if let seen = ledger.since(mark).first(where: { $0["kind"] as? String == kind }) { return seen }
            return try ledger.next(kind)
        }

        static func statuses(_ result: [String: Any]) throws -> [String: String] {
            let entries = try PhoneRig.entries(result)
            return Dictionary(uniqueKeysWithValues: entries.map { ($0["pass_type_id"] as? String ?? "?", $0["status"] as? String ?? "?") })
        }

        @Test func aReloadThatAddsAMerchantAndItsKeyIsUsedByTheNextTap() throws {
            let phone = try Self.rig(config: Self.vas([Self.loyalty])), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            #expect(try Self.statuses(try phone.tap()) == [Self.loyalty: "data_not_found"])

            try rig.reload(config: Self.vas([Self.loyalty, Self.coffee]))
            let reloaded = try ledger.next("config.reloaded")
            #expect(reloaded["changed"] as? [String] == ["vas.merchants"])
            #expect(reloaded["restart_required"] as? [String] == [])
            #expect(reloaded["file"] as? String == rig.configFile)

            let result = try phone.tap()
            #expect(try Self.statuses(result) == [Self.loyalty: "data_not_found", Self.coffee: "success"])
            let coffee = try #require(try PhoneRig.entries(result).first { $0["pass_type_id"] as? String == Self.coffee })
            #expect(coffee["message"] as? String == "member 0042")
            // Nothing secret in the reload's trace: no key material in the log or the events.
            let pem = try String(contentsOfFile: rig.directory.appendingPathComponent("coffee.pem").path, encoding: .utf8)
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            #expect(!body.isEmpty && !rig.daemonLog.contains(body.prefix(24)))
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
        }

        /// `/metrics` labels a VAS read by its merchant when that merchant is configured: one a
        /// reload adds is counted under its own pass type id from the next tap, not as `other`.
        @Test func aMerchantAddedByAReloadIsCountedUnderItsOwnNameOnMetrics() throws {
            let port = try MetricsScenarioTests.freePort()
            let metrics = "[metrics]\nlisten = \"127.0.0.1:\(port)\"\n"
            let phone = try Self.rig(config: metrics + Self.vas([Self.loyalty])), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            try rig.reload(config: metrics + Self.vas([Self.loyalty, Self.coffee]))
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["vas.merchants"])
            #expect(try Self.statuses(try phone.tap()) == [Self.loyalty: "data_not_found", Self.coffee: "success"])

            let scraped = try MetricsScenarioTests.scrape(port)
            let value = { (merchant: String, status: String) in
                MetricsScenarioTests.value(scraped, "passtap_vas_reads_total", ["merchant": merchant, "status": status])
            }
            #expect(value(Self.coffee, "success") == 1, "\(scraped)")
            #expect(value(Self.loyalty, "data_not_found") == 1, "\(scraped)")
            #expect(value("other", "success") == nil, "\(scraped)")
        }

        @Test func aKeyRotatedInPlaceIsUsedByTheNextTapWithoutARestart() throws {
            let phone = try Self.rig(config: Self.vas([Self.coffee])), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            #expect(try Self.statuses(try phone.tap()) == [Self.coffee: "success"])
            // The merchant's key file now holds another key: the phone's pass no longer matches it.
            let file = rig.directory.appendingPathComponent("coffee.pem").path
            let old = try String(contentsOfFile: file, encoding: .utf8)
            try FileManager.default.removeItem(atPath: file)
            try MerchantKey.generate().write(toFile: file, format: .sec1)
            try rig.reload(config: Self.vas([Self.coffee]))
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["vas.merchants"])
            #expect(try Self.statuses(try phone.tap()) == [Self.coffee: "no_matching_key"])
            // And back: the old key again, both listed (a rotation keeps the old key until no pass uses it).
            try FileManager.default.removeItem(atPath: file)
            try old.write(toFile: file, atomically: false, encoding: .utf8)
            chmod(file, 0o600)
            try rig.reload(config: Self.vas([Self.coffee]))
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["vas.merchants"])
            #expect(try Self.statuses(try phone.tap()) == [Self.coffee: "success"])
        }

        @Test func aBrokenReloadLeavesTheOldConfigRunningAndSaysWhatCheckConfigSays() throws {
            let phone = try Self.rig(config: Self.vas([Self.coffee])), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            // The second merchant's key file does not exist.
            try rig.reload(config: Self.vas([Self.coffee]) + "[[vas.merchants]]\npass_type_id = \"pass.com.example.other\"\nkeys = [\"{rig}/missing.pem\"]\n")
            let rejected = try ledger.next("config.rejected")
            #expect(rejected["file"] as? String == rig.configFile)
            #expect(rejected["key"] as? String == "vas.merchants[1].keys[0]")
            let line = try #require(rejected["line"] as? Int)
            let lines = try String(contentsOfFile: rig.configFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[line - 1].contains("missing.pem"), "line \(line) of the file is \(lines[line - 1])")
            let problem = try #require(rejected["problem"] as? String)
            #expect(rig.daemonLog.contains("config.key=vas.merchants[1].keys[0]"))
            #expect(rig.daemonLog.contains("config.line=\(line)"))

            // --check-config refuses the same file with the same words (one function for both).
            let check = try Spawned.finish(Rig.binaries.appendingPathComponent("passtapd").path, ["--check-config", rig.configFile])
            #expect(check.status == 78)
            #expect(check.output.contains("\(rig.configFile):\(line): vas.merchants[1].keys[0]: \(problem)"), "\(check.output)")

            // The old config still runs: the next tap reads the coffee pass with it, one merchant only.
            #expect(try Self.statuses(try phone.tap()) == [Self.coffee: "success"])
            #expect(ledger.answersOnItsConnection())
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
        }

        /// Connects, asks `status`, and returns once answered (by then "client connected" is logged
        /// if the level lets info through).
        static func connectAndAsk(_ rig: Rig) throws {
            let client = try LineClient(path: rig.socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":9,"method":"status"}"#)
            _ = try client.readJSON(what: "the status answer") { $0["id"] as? Int == 9 }
        }

        static func count(_ text: String, in log: String) -> Int {
            log.components(separatedBy: text).count - 1
        }

        @Test func logLevelAndRestartOnlySettingsWithASubscriberThatSeesNoGap() throws {
            let config = "[session]\naids = [\"A0000000041010\"]\n"
            let phone = try Self.rig(config: config), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            _ = try phone.tap()

            // warning: a connection's info line is no longer written.
            try rig.reload(config: config + "[log]\nlevel = \"warning\"\n")
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["log.level"])
            let before = Self.count("client connected", in: rig.daemonLog)
            #expect(before >= 1)
            try Self.connectAndAsk(rig)
            #expect(Self.count("client connected", in: rig.daemonLog) == before)

            // Back to info, with two restart-only changes: named in the event and the log, not applied.
            try rig.reload(config: "max_clients = 5\nmode = \"0600\"\n" + config + "[log]\nlevel = \"info\"\n")
            let reloaded = try ledger.next("config.reloaded")
            #expect(reloaded["changed"] as? [String] == ["log.level"])
            #expect(reloaded["restart_required"] as? [String] == ["socket.mode", "socket.max_clients"])
            #expect(rig.daemonLog.contains("config.restart_required=socket.mode,socket.max_clients"))
            try Self.connectAndAsk(rig)
            #expect(Self.count("client connected", in: rig.daemonLog) == before + 1)
            var info = stat()
            #expect(stat(rig.socketPath, &info) == 0 && info.st_mode & 0o777 == 0o660)

            // A refused file between two taps: the stream goes on, same connection, no gap.
            try rig.reload(config: config + "[log]\nlevel = \"loud\"\n")
            #expect(try ledger.next("config.rejected")["key"] as? String == "log.level")
            _ = try phone.tap()
            #expect(ledger.answersOnItsConnection())
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
            let kinds = ledger.events.compactMap { $0["kind"] as? String }
            #expect(kinds.filter { $0 == "config.reloaded" }.count == 2 && kinds.filter { $0 == "read.result" }.count == 2)

            // passtap watch shows the three outcomes, replayed.
            let watch = try Spawned.finish(
                Rig.binaries.appendingPathComponent("passtap").path,
                ["watch", "--socket", rig.socketPath, "--since", "1", "--kinds", "config.reloaded,config.rejected", "--count", "3"])
            #expect(watch.status == 0, "\(watch.output)")
            // Event lines only (the first line, on stderr, says which instance it watches).
            let shown = watch.output.split(separator: "\n").map(String.init).filter { $0.contains(" config.") }
            #expect(shown.count == 3, "\(watch.output)")
            #expect(shown.first?.hasSuffix("config.reloaded file=\"\(rig.configFile)\" changed=log.level") == true, "\(watch.output)")
            #expect(shown.dropFirst().first?.hasSuffix("changed=log.level restart_required=socket.mode,socket.max_clients") == true)
            #expect(shown.last?.contains("config.rejected at=\"\(rig.configFile):") == true && shown.last?.contains(" key=log.level problem=\"expected one of") == true, "\(watch.output)")
        }

        @Test func aBurstOfSIGHUPsRunsOneReloadAtATimeAndTheLastFileWins() throws {
            let config = "[session]\naids = [\"A0000000041010\"]\n"
            let phone = try Self.rig(config: config), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            // Ten SIGHUPs at once, each changing the PC/SC section (a backend restart: the slowest reload).
            for round in 0..<10 {
                try rig.reload(config: config + "[pcsc]\nreaders = [\"PCD 00 0\(round % 2)\"]\n")
            }
            // Then one more with a marker: serialised, it is done last.
            // (Not the log level: at `notice` the next reload's "reloading the config" line would
            // not show.)
            try rig.reload(config: "[session]\naids = [\"A0000000041010\"]\nbudget_ms = 1900\n[pcsc]\nreaders = [\"PCD 00 01\"]\n")
            var reloads = 0
            while true {
                let reloaded = try ledger.next("config.reloaded")
                reloads += 1
                if (reloaded["changed"] as? [String])?.contains("session.budget_ms") == true { break }
            }
            #expect(reloads >= 1 && reloads <= 11)
            // In the log, each reload ends before the next begins.
            let steps = rig.daemonLog.split(separator: "\n").compactMap { line -> String? in
                if line.contains("reloading the config") { return "begin" }
                if line.hasSuffix("config reloaded") || line.contains("config reload refused") { return "end" }
                return nil
            }
            // An earlier reload may have read the marker's file already (each SIGHUP follows its
            // write): a reload still queued then runs after it, and may have begun by now.
            #expect(steps.count >= 2 * reloads, "\(steps)")
            #expect(steps.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? "begin" : "end") }, "\(steps)")
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
        }

        @Test func eventLimitsFollowAReload() throws {
            let config = "[session]\naids = [\"A0000000041010\"]\n"
            let phone = try Self.rig(config: config), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            _ = try phone.tap()
            let (all, full) = try rig.subscriber(since: 1)
            #expect(full["oldest_seq"] as? Int == 1)
            _ = all

            try rig.reload(config: config + "[events]\nbuffer = 2\nclient_queue = 4\n")
            let reloaded = try ledger.next("config.reloaded")
            #expect(reloaded["changed"] as? [String] == ["events.buffer", "events.client_queue"])
            let seq = try #require(reloaded["seq"] as? Int)
            // The buffer now holds the two newest events: the reload's and the one before it.
            let (_, trimmed) = try rig.subscriber(since: 1)
            #expect(trimmed["oldest_seq"] as? Int == seq - 1)
            #expect(trimmed["next_seq"] as? Int == seq + 1)
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
        }

        static func readerIDs(_ rig: Rig) throws -> [String] {
            let client = try LineClient(path: rig.socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"readers.list"}"#)
            let answer = try client.readJSON(what: "readers.list") { $0["id"] as? Int == 3 }
            let readers = try #require((answer["result"] as? [String: Any])?["readers"] as? [[String: Any]], "\(answer)")
            return readers.compactMap { $0["id"] as? String }
        }

        @Test func aBackendsReaderListDisablingAndEnablingFollowAReload() throws {
            let phone = try Self.rig(config: "[pcsc]\nreaders = []\n"), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            var added = Set<String>()
            while added.count < 2 { added.insert(try ledger.next("reader.added")["reader"] as? String ?? "") }
            #expect(added == [rig.readerID, rig.secondReaderID])

            // Only the second reader: the backend restarts, both go, the second comes back.
            var mark = ledger.mark()
            try rig.reload(config: "[pcsc]\nreaders = [\"PCD 00 01\"]\n")
            #expect(try ledger.next("reader.added")["reader"] as? String == rig.secondReaderID)
            let reloadStep = ledger.since(mark)
            let removed = Set(reloadStep.filter { $0["kind"] as? String == "reader.removed" }.compactMap { $0["reader"] as? String })
            #expect(removed == [rig.readerID, rig.secondReaderID], "\(EventLedger.describe(reloadStep))")
            try Self.event("config.reloaded", since: mark, in: ledger)
            #expect(try Self.readerIDs(rig) == [rig.secondReaderID])

            // Disabled: its reader goes and none comes.
            mark = ledger.mark()
            try rig.reload(config: "[pcsc]\nenabled = false\n")
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["pcsc"])
            #expect(ledger.since(mark).contains { $0["kind"] as? String == "reader.removed" && $0["reader"] as? String == rig.secondReaderID })
            #expect(try Self.readerIDs(rig).isEmpty)

            // Enabled again with every reader: both come back, and a tap on the first is read.
            try rig.reload(config: "[pcsc]\nenabled = true\n[session]\naids = [\"A0000000041010\"]\n")
            added = []
            while added.count < 2 { added.insert(try ledger.next("reader.added")["reader"] as? String ?? "") }
            #expect(added == [rig.readerID, rig.secondReaderID])
            let result = try phone.tap()
            #expect(result["reader"] as? String == rig.readerID)
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
        }
    }
}
