import Foundation
import PassTapTestNetwork
import Testing

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// Reader feedback through the real stack (docs/feedback.md): pcscd, vpcd and the virtual
    /// card, whose reader side answers the ACR122U's `FF 00 40` (`reader acr122u` in
    /// `scripts/rig/virtual_card.py`) and records it; vpcd's reader is named an ACR122U in
    /// `[[feedback.readers]]`.
    @Suite(.serialized) struct FeedbackScenarioTests {
        static let config = """
            [session]
            aids = ["A0000000041010"]
            [feedback]
            enabled = true
            [[feedback.readers]]
            name = "Virtual PCD"
            model = "acr122u"
            """

        /// What the virtual reader was sent, oldest first.
        static func feedback(_ rig: Rig) throws -> [String] {
            try #require(try rig.cardCommand("feedback")["commands"] as? [String])
        }

        /// The reader's `hooks` member in `readers.list`.
        static func hooks(_ rig: Rig, _ id: String? = nil) throws -> [String: String]? {
            let lister = try LineClient(path: rig.socketPath)
            try lister.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"readers.list"}"#)
            let answer = try lister.readJSON(what: "readers.list") { $0["id"] as? Int == 1 }
            let readers = try #require((answer["result"] as? [String: Any])?["readers"] as? [[String: Any]])
            let reader = try #require(readers.first { $0["id"] as? String == (id ?? rig.readerID) })
            return reader["hooks"] as? [String: String]
        }

        /// A card whose application answers plays `no_pass` after its result; a reader that refuses
        /// the pattern still has the next tap read, and says so in `readers.list`.
        @Test func eachTapPlaysItsPatternAfterItsResultAndARefusalCostsNoRead() throws {
            let rig = try Rig(config: Self.config)
            defer { rig.stop() }
            let ledger = try EventLedger(rig: rig)
            try ledger.next("reader.added")
            try rig.cardCommand("reader acr122u")
            try rig.cardCommand("tap")
            let first = try ledger.next("read.result", timeout: 30)
            #expect((first["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(first)")
            // no_pass's built-in pattern: both LEDs, 500 ms, once, no buzzer.
            try rig.waitFor("the reader's feedback") { (try? Self.feedback(rig))?.count == 1 }
            #expect(try Self.feedback(rig) == ["FF0040FC0405000100"])
            #expect(try Self.hooks(rig) == ["feedback": "on"])
            try rig.cardCommand("remove")
            try ledger.next("card.removed")

            try rig.cardCommand("reader refuse")
            try rig.cardCommand("tap")
            let second = try ledger.next("read.result", timeout: 30)
            #expect((second["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(second)")
            try rig.waitFor("the refusal in readers.list") { (try? Self.hooks(rig))??["feedback"]?.hasPrefix("refused") == true }
            #expect(try Self.hooks(rig) == ["feedback": "refused: the reader answered 6300 to FF 00 40"])
            try rig.cardCommand("remove")
            try ledger.next("card.removed")
        }

        /// An ACR1252U behind libccid (the rig's escape reader): when it appears, its default
        /// behaviour byte is read and written back with the detection beep off, through pcscd's
        /// direct connection; `hidden` (libccid without the escape option) is reported with the fix.
        @Test(arguments: [("libccid", true), ("hidden", false)])
        func theDetectionBeepIsTurnedOffWhenTheReaderAppears(_ mode: String, _ escapes: Bool) throws {
            let rig = try Rig(config: "[feedback]\nenabled = true\n", escapeReader: mode)
            defer { rig.stop() }
            let reader = "pcsc:ACS ACR1252 1S CL Reader 00 00"
            if escapes {
                try rig.waitFor("the default behaviour written back") {
                    ((try? String(contentsOfFile: rig.escapeLog, encoding: .utf8)) ?? "").contains("42000001 E000002101F3")
                }
                // The rig's escape reader has two slots, each opened by its own thread, sharing
                // one behaviour byte: each reads it first, and only the beep bit is cleared.
                let calls = try String(contentsOfFile: rig.escapeLog, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("42000001") }
                #expect(calls.first == "42000001 E000002100", "\(calls)")
                #expect(calls.filter { $0.hasPrefix("42000001 E000002101") }.allSatisfy { $0 == "42000001 E000002101F3" }, "\(calls)")
            } else {
                try rig.waitFor("the missing escape in readers.list") { (try? Self.hooks(rig, reader))??["feedback"] != nil }
                #expect(try Self.hooks(rig, reader)?["feedback"]?.contains("ifdDriverOptions") == true)
            }
        }
        /// `feedback.signal` on the real socket: one answer line, by id.
        static func signal(_ rig: Rig, reader: String, verdict: String) throws -> [String: Any] {
            let client = try LineClient(path: rig.socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":7,"method":"feedback.signal","params":{"reader":"\#(reader)","verdict":"\#(verdict)"}}"#)
            return try client.readJSON(what: "feedback.signal") { $0["id"] as? Int == 7 }
        }

        /// The POS's verdict: with the card still in the field it goes through the card
        /// (`FF 00 40`, the ACR122U's pattern for `accepted`); with no card, through the escape
        /// code on a direct connection (the ACR1252U's LED and buzzer commands, and the LED off
        /// once the pattern's time is over); a reader whose driver takes no control command
        /// answers `feedback_unavailable` with the reason.
        @Test func thePOSVerdictIsPlayedThroughTheCardOrTheEscapeCode() throws {
            let rig = try Rig(config: Self.config, escapeReader: "libccid")
            defer { rig.stop() }
            let ledger = try EventLedger(rig: rig)
            try ledger.next("reader.added")
            try rig.cardCommand("reader acr122u")
            try rig.cardCommand("tap")
            _ = try ledger.next("read.result", timeout: 30)
            try rig.waitFor("the tap's pattern") { (try? Self.feedback(rig))?.count == 1 }

            let card = try Self.signal(rig, reader: rig.readerID, verdict: "accepted")
            #expect((card["result"] as? [String: Any])?["path"] as? String == "card", "\(card)")
            // accepted's built-in pattern: green, 1 s, once, silent.
            #expect(try Self.feedback(rig) == ["FF0040FC0405000100", "FF0040A8040A000100"])
            try rig.cardCommand("remove")
            try ledger.next("card.removed")

            // vpcd has no IFDHControl: without a card, its reader cannot take the verdict.
            let vpcd = try Self.signal(rig, reader: rig.readerID, verdict: "refused")
            let vpcdError = try #require(vpcd["error"] as? [String: Any], "\(vpcd)")
            #expect(vpcdError["code"] as? Int == -32026, "\(vpcd)")
            #expect((vpcdError["data"] as? [String: Any])?["code"] as? String == "refused", "\(vpcd)")

            // refused's built-in pattern on the ACR1252U, through libccid's escape code: red, and
            // one 300 ms beep; the LEDs off after (300 + 200) ms x 2.
            let escape = try Self.signal(rig, reader: "pcsc:ACS ACR1252 1S CL Reader 00 00", verdict: "refused")
            #expect((escape["result"] as? [String: Any])?["path"] as? String == "escape", "\(escape)")
            try rig.waitFor("the LEDs turned off") {
                ((try? String(contentsOfFile: rig.escapeLog, encoding: .utf8)) ?? "").contains("42000001 E00000290100")
            }
            let calls = try String(contentsOfFile: rig.escapeLog, encoding: .utf8).split(separator: "\n")
                .filter { $0.hasPrefix("42000001 E0000029") || $0.hasPrefix("42000001 E0000028") }
            #expect(calls == ["42000001 E00000290101", "42000001 E0000028011E", "42000001 E00000290100"], "\(calls)")
        }
        /// A reload that removes `[feedback]` gives the ACR1252U its own detection beep back: its
        /// behaviour byte is read again and written with bit 3 set (F3 back to FB).
        @Test func removingFeedbackTurnsTheReadersOwnBeepBackOn() throws {
            let rig = try Rig(config: "[feedback]\nenabled = true\n", escapeReader: "libccid")
            defer { rig.stop() }
            let ledger = try EventLedger(rig: rig)
            let log = { (try? String(contentsOfFile: rig.escapeLog, encoding: .utf8)) ?? "" }
            try rig.waitFor("the detection beep turned off") { log().contains("42000001 E000002101F3") }
            try rig.reload(config: "")
            _ = try ledger.next("config.reloaded")
            try rig.waitFor("the detection beep turned back on") { log().contains("42000001 E000002101FB") }
            let writes = log().split(separator: "\n").filter { $0.hasPrefix("42000001 E000002101") }
            #expect(writes.last == "42000001 E000002101FB", "\(writes)")
        }
        /// The ACR1252U keeps its behaviour byte in flash: a passtapd started after `[feedback]`
        /// was removed gives the reader its beep back, from the list the earlier run kept in the
        /// state directory (`$STATE_DIRECTORY`, as the unit's `StateDirectory=` sets it).
        @Test func aRestartWithoutFeedbackTurnsTheReadersOwnBeepBackOn() throws {
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-state-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: state) }
            let rig = try Rig(config: "[feedback]\nenabled = true\n", daemonEnvironment: ["STATE_DIRECTORY": state.path], escapeReader: "libccid")
            defer { rig.stop() }
            let log = { (try? String(contentsOfFile: rig.escapeLog, encoding: .utf8)) ?? "" }
            let kept = state.appendingPathComponent("feedback-silenced.json").path
            try rig.waitFor("the detection beep turned off and written down") {
                log().contains("42000001 E000002101F3") && ((try? String(contentsOfFile: kept, encoding: .utf8)) ?? "").contains("ACR1252")
            }
            _ = rig.stopDaemon()
            try rig.startDaemon(config: "")
            try rig.waitFor("the detection beep turned back on") { log().contains("42000001 E000002101FB") }
            try rig.waitFor("the list emptied") { (try? String(contentsOfFile: kept, encoding: .utf8)) == #"{"readers":{}}"# }
        }
    }
}
