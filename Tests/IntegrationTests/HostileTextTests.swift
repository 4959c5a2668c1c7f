import Foundation
import ISO7816
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Strings a card, a phone or a reader chose, shown to the operator: the built `passtap` renders
/// them escaped (`UntrustedText`), and `passtapd` logs them escaped. The CLI's side is checked
/// against a stand-in daemon (`socat` serving canned answers), so it holds whatever a daemon sends.
@Suite struct HostileTextTests {
    /// Sets the terminal's title, then clears the screen: what a label must never do.
    static let title = "\u{1B}]0;pwned\u{07}"
    static let escapedTitle = "\\u{1B}]0;pwned\\u{7}"
    static let reader = "pcsc:Evil \(title)Reader 00 00"

    /// Serves `messages`, one JSON line each, to the first client that connects, whatever it
    /// sends (which stays unread), and closes 5 s later.
    struct StandInDaemon {
        let socket: String
        let directory: String
        private let process: Spawned

        init(_ messages: [[String: Any]]) throws {
            directory = NSTemporaryDirectory() + "passtap-standin-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            socket = directory + "/passtapd.sock"
            let lines = try messages.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) + "\n" }
            try lines.joined().write(toFile: directory + "/answers.jsonl", atomically: true, encoding: .utf8)
            process = try Spawned.start(
                "/usr/bin/env", ["socat", "UNIX-LISTEN:\(socket)", "SYSTEM:cat \(directory)/answers.jsonl; sleep 5"],
                stdout: directory + "/socat.log", stderr: directory + "/socat.log")
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: socket) {
                guard Date() < deadline else { throw Rig.Failure(description: "socat never listened on \(socket)") }
                usleep(10_000)
            }
        }

        func stop() {
            process.signal(SIGTERM)
            process.wait(seconds: 5)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Runs the built `passtap` with `arguments` and `--socket` the stand-in's.
    static func passtap(_ arguments: [String], against daemon: StandInDaemon) throws -> (status: Int32, output: String) {
        let finished = try Spawned.finish(
            Rig.binaries.appendingPathComponent("passtap").path, arguments + ["--socket", daemon.socket], deadline: 20)
        return (finished.status, finished.output)
    }

    /// The output's lines that hold a character a terminal would obey.
    static func obeyedLines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { $0.unicodeScalars.contains(where: UntrustedText.mustEscape) }
    }

    static func response(_ id: Int, _ result: [String: Any]) -> [String: Any] {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    static func event(_ seq: Int, _ kind: String, _ fields: [String: Any]) -> [String: Any] {
        var params: [String: Any] = ["seq": seq, "time": "2026-11-22T11:10:00.400Z", "kind": kind, "reader": reader]
        params.merge(fields) { _, new in new }
        return ["jsonrpc": "2.0", "method": "event", "params": params]
    }

    /// A pass message that clears the screen; the CLI reads it from `message_hex`.
    static let message = "member\r\n\u{1B}[2J0042"

    /// A phone's VAS record with a hostile label, version, problem, message and entry problem.
    static var vas: [String: Any] {
        [
            "offered": true, "wallet": "\(title)ApplePay", "version": "01\u{9B}2J",
            "capabilities": ["hex": "0000003E", "bits": ["encrypted"]], "mode": "vas_or_payment",
            "problem": "the phone says \u{202E}gnp.exe",
            "entries": [
                [
                    "pass_type_id": "pass.com.example.coffee", "status": "success", "sw": "9000", "key_id": "6D5E1F0A",
                    "timestamp": "2026-11-22T11:06:00.000Z", "timestamp_raw": 817_038_360, "message": message,
                    "message_hex": Array(message.utf8).hexString, "variant": "A", "problem": NSNull(),
                ],
                [
                    "pass_type_id": "pass.com.example.loyalty", "status": "malformed_response", "sw": "9000", "key_id": NSNull(),
                    "timestamp": NSNull(), "timestamp_raw": NSNull(), "message": NSNull(), "message_hex": NSNull(), "variant": NSNull(),
                    "problem": "\u{2066}forged\u{2069} \u{85}",
                ],
            ],
        ]
    }

    static var readResult: [String: Any] {
        [
            "atr": "3B8680014B4F4E41141109", "uid": "04A23C1A7F2D80", "atqa": NSNull(), "sak": NSNull(), "ats": NSNull(),
            "target": "iso_dep",
            "aid": [
                "selected": "A0000000041010", "fci": NSNull(),
                "attempts": [["aid": "A0000000041010", "sw": "9000"]],
                "ppse": ["offered": true, "applications": [["aid": "A0000000041010", "label": "VISA\u{1B}[8m", "priority": 1]]],
            ],
            "vas": vas,
            "error": ["code": "card_removed", "message": "gone \(title)"],
        ]
    }

    @Test func watchShowsAHostileTapWithoutObeyingIt() throws {
        let daemon = try StandInDaemon([
            Self.response(1, ["instance": "i-1", "oldest_seq": 1, "next_seq": 7]),
            Self.event(5, "reader.changed", ["name": "Evil", "backend": "pcsc", "state": "unavailable", "reason": "driver says \(Self.title)"]),
            Self.event(6, "read.result", Self.readResult),
        ])
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["watch", "--count", "2"], against: daemon)
        #expect(status == 0, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        #expect(output.contains("#5 reader.changed [pcsc:Evil \(Self.escapedTitle)Reader 00 00] state=unavailable reason=\"driver says \(Self.escapedTitle)\""), "\(output)")
        #expect(output.contains("#6 read.result ["), "\(output)")
        #expect(output.contains("ppse=A0000000041010(VISA\\u{1B}[8m)"), "\(output)")
        #expect(output.contains("error=card_removed (gone \(Self.escapedTitle))"), "\(output)")
        #expect(output.contains("vas: \(Self.escapedTitle)ApplePay v01\\u{9B}2J caps="), "\(output)")
        #expect(output.contains("— the phone says \\u{202E}gnp.exe"), "\(output)")
        #expect(output.contains(#"message="member\u{D}\u{A}\u{1B}[2J0042""#), "\(output)")
        #expect(output.contains("— \\u{2066}forged\\u{2069} \\u{85}"), "\(output)")
    }

    @Test func readersAndStatusEscapeReaderNamesAndReasons() throws {
        let readers: [[String: Any]] = [
            ["id": Self.reader, "name": "Evil", "backend": "pcsc", "state": "unavailable", "reason": "\u{202E}sharing violation"]
        ]
        let listing = try StandInDaemon([Self.response(1, ["readers": readers])])
        defer { listing.stop() }
        let (status, output) = try Self.passtap(["readers"], against: listing)
        #expect(status == 0, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        #expect(output.contains("pcsc:Evil \(Self.escapedTitle)Reader 00 00  pcsc  unavailable  (\\u{202E}sharing violation)"), "\(output)")

        let statusDaemon = try StandInDaemon([
            Self.response(1, ["version": "0.1.0", "protocol": 1, "instance": "i-1", "uptime_s": 1.5, "readers": readers])
        ])
        defer { statusDaemon.stop() }
        let shown = try Self.passtap(["status"], against: statusDaemon)
        #expect(shown.status == 0, "\(shown.output)")
        #expect(Self.obeyedLines(shown.output).isEmpty, "\(Self.obeyedLines(shown.output))")
        #expect(shown.output.contains("pcsc:Evil \(Self.escapedTitle)Reader"), "\(shown.output)")
    }

    @Test func vasReadEscapesWhatThePhoneSent() throws {
        let readers: [[String: Any]] = [["id": Self.reader, "name": "Evil", "backend": "pcsc", "state": "empty", "reason": NSNull()]]
        var result: [String: Any] = ["reader": Self.reader, "atr": "3B80800101", "uid": "04A1B2C3D4E5F6", "vas": Self.vas]
        result["error"] = NSNull()
        let daemon = try StandInDaemon([Self.response(1, ["readers": readers]), Self.response(2, result)])
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["vas-read", "Evil"], against: daemon)
        #expect(status == 0, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        #expect(output.contains("[pcsc:Evil \(Self.escapedTitle)Reader 00 00] uid=04A1B2C3D4E5F6"), "\(output)")
        #expect(output.contains("vas: \(Self.escapedTitle)ApplePay"), "\(output)")
    }

    /// A tag's records whose type, language and text would drive the terminal and break the line,
    /// and a URI longer than a line: each record stays on one line, escaped, the URI cut.
    @Test func watchShowsAHostileTagsRecordsOneALine() throws {
        let long = "https://passtap.example/" + String(repeating: "a", count: 200)
        func record(_ type: String, content: String, uri: Any = NSNull(), text: Any = NSNull(), language: Any = NSNull()) -> [String: Any] {
            [
                "tnf": "well_known", "type": type, "id": "", "payload_length": 9, "payload_hex": NSNull(), "content": content, "uri": uri,
                "text": text, "language": language, "encoding": NSNull(), "titles": NSNull(), "action": NSNull(), "problem": NSNull(),
            ]
        }
        let ndef: [String: Any] = [
            "tag_type": "type2", "record_count": 2, "message_hex": NSNull(), "truncated": false, "problem": NSNull(), "withheld": NSNull(),
            "records": [
                record("T\u{1B}[2J", content: "text", text: "line one\nline two \(Self.title)", language: "e\u{202E}n"),
                record("U", content: "uri", uri: long),
            ],
        ]
        let tap: [String: Any] = [
            "atr": "3B8F8001804F0CA0000003060300030000000068", "uid": "04A23C1A7F2D80", "atqa": NSNull(), "sak": NSNull(), "ats": NSNull(),
            "target": "memory", "aid": NSNull(), "vas": NSNull(), "ndef": ndef, "smarttap": NSNull(), "error": NSNull(), "duration_ms": NSNull(),
        ]
        let daemon = try StandInDaemon([Self.response(1, ["instance": "i-1", "oldest_seq": 1, "next_seq": 7]), Self.event(6, "read.result", tap)])
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["watch", "--count", "1"], against: daemon)
        #expect(status == 0, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains("    ndef type2: 2 records"), "\(output)")
        #expect(lines.contains("    ndef T\\u{1B}[2J e\\u{202E}n: text=\"line one\\u{A}line two \(Self.escapedTitle)\""), "\(output)")
        #expect(lines.contains("    ndef U: uri=\"\(long.prefix(80))\"…"), "\(output)")
    }

    /// A reader that matches nothing: the readers one a line, a hostile name escaped.
    @Test func aReaderThatMatchesNothingListsTheReadersOneALine() throws {
        let readers: [[String: Any]] = [
            ["id": Self.reader, "name": "Evil", "backend": "pcsc", "state": "empty", "reason": NSNull()],
            ["id": "pcsc:Good Reader 00 00", "name": "Good", "backend": "pcsc", "state": "empty", "reason": NSNull()],
        ]
        let daemon = try StandInDaemon([Self.response(1, ["readers": readers])])
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["pass-read", "nosuch\u{1B}[2J"], against: daemon)
        #expect(status == 64, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        #expect(output.contains("no reader matches \"nosuch\\u{1B}[2J\". Readers:\n  pcsc:Evil \(Self.escapedTitle)Reader 00 00\n  pcsc:Good Reader 00 00\n"), "\(output)")
    }

    /// The output's lines parsed as JSON (each must parse).
    static func jsonLines(_ output: String) throws -> [NSDictionary] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary, "not a JSON object: \(line)")
        }
    }

    @Test func watchJSONEscapesControlsAndBidiAndKeepsTheValues() throws {
        let events = [
            Self.event(5, "reader.changed", ["name": "Evil", "backend": "pcsc", "state": "unavailable", "reason": "driver says \(Self.title)"]),
            Self.event(6, "read.result", Self.readResult),
        ]
        let daemon = try StandInDaemon([Self.response(1, ["instance": "i-1", "oldest_seq": 1, "next_seq": 7])] + events)
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["watch", "--json", "--count", "2"], against: daemon)
        #expect(status == 0, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        let lines = try Self.jsonLines(output)
        #expect(lines.count == 3, "\(output)")
        // The events parse to what the daemon sent, C1 controls and bidi overrides included.
        let sent = try events.map { try #require(try JSONSerialization.jsonObject(with: JSONSerialization.data(withJSONObject: $0)) as? NSDictionary) }
        #expect(Array(lines.dropFirst()) == sent, "\(output)")
        #expect(output.contains(#"\u009b2J"#) && output.contains(#"\u202egnp.exe"#) && output.contains(#"\u2066forged\u2069 \u0085"#), "\(output)")
    }

    @Test func vasReadJSONEscapesWhatThePhoneSentAndKeepsTheValues() throws {
        let readers: [[String: Any]] = [["id": Self.reader, "name": "Evil", "backend": "pcsc", "state": "empty", "reason": NSNull()]]
        var result: [String: Any] = ["reader": Self.reader, "atr": "3B80800101", "uid": "04A1B2C3D4E5F6", "vas": Self.vas]
        result["error"] = NSNull()
        let daemon = try StandInDaemon([Self.response(1, ["readers": readers]), Self.response(2, result)])
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["vas-read", "--json", "Evil"], against: daemon)
        #expect(status == 0, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        let printed = try #require(try Self.jsonLines(output).first)
        let vas = try #require(printed["vas"] as? NSDictionary)
        #expect(vas["wallet"] as? String == "\(Self.title)ApplePay" && vas["version"] as? String == "01\u{9B}2J")
        #expect(vas["problem"] as? String == "the phone says \u{202E}gnp.exe")
        let entries = try #require(vas["entries"] as? [NSDictionary])
        #expect(entries.first?["message"] as? String == Self.message)
        #expect(entries.last?["problem"] as? String == "\u{2066}forged\u{2069} \u{85}")
    }

    @Test func anErrorFromTheDaemonIsEscapedOnStandardError() throws {
        let error: [String: Any] = [
            "code": -32003, "message": "reader \(Self.title) is unavailable", "data": ["reason": "reader_unavailable"],
        ]
        let daemon = try StandInDaemon([["jsonrpc": "2.0", "id": 1, "error": error]])
        defer { daemon.stop() }
        let (status, output) = try Self.passtap(["status"], against: daemon)
        #expect(status == 69, "\(output)")
        #expect(Self.obeyedLines(output).isEmpty, "\(Self.obeyedLines(output))")
        #expect(output.contains("passtap: passtapd: reader \(Self.escapedTitle) is unavailable (reader_unavailable -32003)"), "\(output)")
    }

    /// The daemon's own log: a libnfc device whose path holds the title sequence (a reader's name
    /// or an error could as well) is logged escaped.
    @Test func theDaemonLogsWhatItWasGivenEscaped() throws {
        let config = """
            [pcsc]
            enabled = false
            [libnfc]
            enabled = true
            devices = ["pn532_uart:/nonexistent/\\u001b]0;pwned\\u0007"]
            """
        let rig = try Rig(config: config, pcscd: false)
        defer { rig.stop() }
        let deadline = Date().addingTimeInterval(10)
        while !rig.daemonLog.contains("/nonexistent/"), Date() < deadline { usleep(50_000) }
        let log = rig.daemonLog
        #expect(log.contains("/nonexistent/\(Self.escapedTitle)"), "\(log)")
        #expect(Self.obeyedLines(log).isEmpty, "\(Self.obeyedLines(log))")
    }
}
