import ForwardSettings
import Foundation
import PassTapTestNetwork
import PassTapTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests`, whose `.serialized` reaches nested suites: one pcscd per machine.
extension PCSCScenarioTests {
    /// The built passtapd as systemd runs it: `$NOTIFY_SOCKET` (a datagram socket of the test's),
    /// a 1 s `$WATCHDOG_USEC`, and stderr as `$JOURNAL_STREAM`, with pcscd, vpcd and the virtual card.
    @Suite(.serialized) struct SystemdScenarioTests {
        /// READY only once the socket answers; STATUS with readers, clients and the last tap, and
        /// no card data; WATCHDOG while healthy; RELOADING then READY around a reload (accepted
        /// or refused); STOPPING at SIGTERM; journal priorities in the log.
        @Test func notifiesReadyStatusWatchdogAndStoppingAndLogsWithJournalPriorities() throws {
            let systemd = try NotifySocketListener()
            let rig = try Rig(
                config: PCSCScenarioTests.config,
                daemonEnvironment: ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "1000000"], journalStream: true)
            defer { rig.stop() }
            #expect(systemd.receive() == "READY=1")
            // READY came after the socket listened: a client is served at once.
            let (client, _) = try rig.subscriber(kinds: ["read.result"])
            let status = try #require(systemd.receive())
            #expect(status.hasPrefix("STATUS="), "\(status)")
            #expect(status.contains("no tap yet"), "\(status)")

            var seen = [String]()
            while !seen.contains("WATCHDOG=1") {
                seen.append(try #require(systemd.receive(), "no WATCHDOG=1 after \(seen)"))
            }

            try rig.cardCommand("tap")
            _ = try client.readJSON(what: "read.result") { ($0["params"] as? [String: Any])?["kind"] as? String == "read.result" }
            var tapped: String?
            while tapped == nil {
                let line = try #require(systemd.receive(), "no STATUS after the tap; seen \(seen)")
                seen.append(line)
                if line.hasPrefix("STATUS="), line.contains("last tap") { tapped = line }
            }
            let line = try #require(tapped)
            #expect(line.contains("1 client"), "\(line)")
            // World-readable: no UID, no ATR, no reader name.
            for secret in ["04A1B2C3D4E5F6", "3B86", "Virtual PCD"] {
                #expect(!line.contains(secret), "\(line)")
            }
            try rig.cardCommand("remove")

            // A reload, accepted then refused: RELOADING=1 then READY=1 around each.
            for config in [PCSCScenarioTests.config + "\n[log]\nlevel = \"debug\"", "[session]\naids = [\"not hex\"]"] {
                try rig.reload(config: config)
                var around = [String]()
                while !around.contains("RELOADING=1") {
                    around.append(try #require(systemd.receive(), "no RELOADING=1; seen \(around)"))
                }
                while around.last != "READY=1" {
                    around.append(try #require(systemd.receive(), "no READY=1 after RELOADING=1; seen \(around)"))
                }
                // Then `systemctl status` shows the daemon's own line again, not the reload's.
                around.append(try #require(systemd.receive(), "nothing after READY=1; seen \(around)"))
                #expect(around.last.map(Self.isNormalStatus) == true, "\(around)")
                let statuses = around.drop { $0 != "RELOADING=1" }.filter { $0.hasPrefix("STATUS=") }
                #expect(statuses.allSatisfy(Self.isNormalStatus), "\(around)")
                seen += around
            }

            rig.stopDaemon()
            var rest = [String]()
            while let next = systemd.receive(seconds: 1) { rest.append(next) }
            #expect(rest.last == "STOPPING=1", "\(rest)")
            let expected: Set<String> = ["WATCHDOG=1", "STOPPING=1", "RELOADING=1", "READY=1"]
            let unexpected = (seen + rest).filter { !(expected.contains($0) || $0.hasPrefix("STATUS=")) }
            #expect(unexpected.isEmpty, "\(unexpected)")

            let log = rig.daemonLog.split(separator: "\n")
            #expect(!log.isEmpty)
            for entry in log {
                #expect(entry.range(of: #"^<[2-7]>passtapd "#, options: .regularExpression) != nil, "\(entry)")
            }
            #expect(log.contains { $0.hasPrefix("<6>passtapd info: listening") }, "\(rig.daemonLog)")
            // The refused reload is an error to the journal; the debug level the first one set shows.
            #expect(log.contains { $0.hasPrefix("<3>passtapd error: config reload refused") }, "\(rig.daemonLog)")
            #expect(log.contains { $0.hasPrefix("<7>passtapd debug: ") }, "\(rig.daemonLog)")
        }

        /// Whether `datagram` is the daemon's usual `STATUS=` line: readers, clients, last tap.
        static func isNormalStatus(_ datagram: String) -> Bool {
            datagram.range(of: #"^STATUS=\d+ readers? \(\d+ usable\), \d+ clients?, (no tap yet|last tap \S+)$"#, options: .regularExpression) != nil
        }

        /// A normal run under the unit's restrictions says nothing above info: with its
        /// `Environment=` and its refused calls (setpriority fails with EPERM; syslog goes to the
        /// log, as the journal would record it), start, READY, a tap, SIGTERM. Without the unit's
        /// `LIBDISPATCH_LOG=NO`, libdispatch logs a notice per worker thread ("Failed to set
        /// thread priority for worker thread: ... errno=1").
        @Test func aNormalStartTapAndStopLogNothingAboveInfoUnderTheUnitsRestrictions() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-unit-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let systemd = try NotifySocketListener()
            var environment = try ServiceUnit.environment()
            environment["LD_PRELOAD"] = try ServiceUnit.buildPreload(in: folder)
            environment["NOTIFY_SOCKET"] = systemd.path
            environment["WATCHDOG_USEC"] = "30000000"  // WatchdogSec=30s
            let rig = try Rig(config: PCSCScenarioTests.config, daemonEnvironment: environment, journalStream: true)
            defer { rig.stop() }
            #expect(systemd.receive() == "READY=1")
            let (client, _) = try rig.subscriber(kinds: ["read.result"])
            try rig.cardCommand("tap")
            let result = try client.readJSON(what: "read.result") { ($0["params"] as? [String: Any])?["kind"] as? String == "read.result" }
            #expect((result["params"] as? [String: Any])?["error"] is NSNull, "\(result)")
            try rig.cardCommand("remove")
            rig.stopDaemon()

            let log = rig.daemonLog.split(separator: "\n")
            #expect(log.contains { $0.hasPrefix("<6>passtapd info: listening") }, "\(rig.daemonLog)")
            let aboveInfo = log.filter { $0.range(of: #"^<[67]>"#, options: .regularExpression) == nil }
            #expect(aboveInfo.isEmpty, "lines above info in a normal run: \(aboveInfo)")
        }

        /// A slow card is not a hung daemon: with every answer 1.5 s late, the session takes
        /// seconds, the watchdog pings go on meanwhile, and no reader is restarted.
        @Test func aSlowCardKeepsTheWatchdogPingsComingAndItsReaderRunning() throws {
            let systemd = try NotifySocketListener()
            let rig = try Rig(config: PCSCScenarioTests.config, daemonEnvironment: ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "1000000"])
            defer { rig.stop() }
            #expect(systemd.receive() == "READY=1")
            let (client, _) = try rig.subscriber(kinds: ["card.inserted", "read.result", "reader.removed"])
            try rig.cardCommand("delay 1500")
            try rig.cardCommand("tap")
            _ = try client.readJSON(what: "card.inserted") { ($0["params"] as? [String: Any])?["kind"] as? String == "card.inserted" }
            _ = systemd.drain()
            let result = try client.readJSON(timeout: 20, what: "read.result") { $0["method"] as? String == "event" }
            let params = try #require(result["params"] as? [String: Any])
            #expect(params["kind"] as? String == "read.result", "\(params)")
            #expect(((params["aid"] as? [String: Any])?["selected"] as? String) == "A0000000041010", "\(params)")
            let during = systemd.drain()
            #expect(during.contains("WATCHDOG=1"), "no ping during a slow session: \(during)")
            try rig.cardCommand("delay 0")
            try rig.cardCommand("remove")
        }

        /// A card that never answers holds its reader's thread in a transfer: past the budget plus
        /// pcsc's transport timeout (7 s) the reader is restarted, the event says why, the daemon
        /// keeps pinging and reads the next tap.
        @Test func aCardThatNeverAnswersHasItsReaderRestartedNotTheDaemonKilled() throws {
            let systemd = try NotifySocketListener()
            let rig = try Rig(config: PCSCScenarioTests.config, daemonEnvironment: ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "1000000"])
            defer { rig.stop() }
            #expect(systemd.receive() == "READY=1")
            let (client, _) = try rig.subscriber(kinds: ["reader.removed", "reader.added", "read.result"])
            try rig.cardCommand("stall")
            try rig.cardCommand("tap")
            let removed = try client.readJSON(timeout: 30, what: "reader.removed") { ($0["params"] as? [String: Any])?["kind"] as? String == "reader.removed" }
            let info = try #require(removed["params"] as? [String: Any])
            #expect(info["reader"] as? String == rig.readerID)
            // The stalled APDU is the one that reads the UID, before the session.
            #expect((info["reason"] as? String)?.contains("stuck in waiting for a card or reading its identity") == true, "\(info)")
            #expect((info["reason"] as? String)?.hasSuffix("passtapd restarts the reader") == true, "\(info)")
            _ = try client.readJSON(timeout: 30, what: "reader.added") { ($0["params"] as? [String: Any])?["kind"] as? String == "reader.added" }
            _ = systemd.drain()
            var pings = [String]()
            while !pings.contains("WATCHDOG=1") {
                pings.append(try #require(systemd.receive(seconds: 5), "no WATCHDOG=1 after the restart: \(pings)"))
            }
            #expect(Rig.isAlive(rig.daemonPID))
            // The card never left: the restarted reader may already be reading it again, and its
            // removal then ends that session with `card_removed`. Once the reader is empty, a new
            // subscriber sees only the next tap.
            try rig.cardCommand("remove")
            try rig.waitForReader(rig.readerID, state: "empty")
            let (next, _) = try rig.subscriber(kinds: ["read.result"])
            try rig.cardCommand("tap")
            // The stuck thread ran no session: the next tap is read in full.
            let message = try next.readJSON(timeout: 30, what: "read.result") { ($0["params"] as? [String: Any])?["kind"] as? String == "read.result" }
            let result = try #require(message["params"] as? [String: Any])
            #expect(result["error"] is NSNull, "\(result)")
            #expect(((result["aid"] as? [String: Any])?["selected"] as? String) == "A0000000041010", "\(result)")
            try rig.cardCommand("remove")
        }
    }
}
