import ConfigKit
import Foundation
import Testing

@testable import PassTapKeyboard

/// keyboard.toml and what a read comes to: the sources, the template, the cut, the filter, the age.
@Suite struct KeyboardSettingsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let time = "2027-01-15T08:00:00.000Z"

    /// A read.result line at `time` with a VAS message, as passtapd writes it (keys it does not
    /// need are left out; the typist ignores them).
    static func line(message: String, time: String = time, reader: String = "pcsc:ACS ACR122U 00 00") throws -> Data {
        let event: [String: Any] = [
            "seq": 4, "time": time, "kind": "read.result", "reader": reader, "uid": "04A23C1A7F2D80",
            "vas": ["entries": [["pass_type_id": "pass.example", "message": message]]], "ndef": NSNull(), "smarttap": NSNull(),
        ]
        return try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "method": "event", "params": event])
    }

    static var settings: KeyboardSettings {
        var settings = KeyboardSettings()
        settings.maxAgeMilliseconds = 3000
        return settings
    }

    static let readTime = ISO8601DateFormatter().date(from: "2027-01-15T08:00:00Z")!

    @Test func aPassMessageIsTypedWithTheTemplateAndTheCut() throws {
        var settings = Self.settings
        settings.prefix = "M:"
        settings.template = "{value}"
        settings.cutSeparator = ";"
        settings.cutField = 1
        let decision = settings.decide(line: try Self.line(message: "x;member-0042;y"), now: Self.readTime.addingTimeInterval(0.5))
        #expect(decision == .type(text: "M:member-0042", source: .vas))
        settings.cutSeparator = ""
        settings.cutOffset = 2
        settings.cutLength = 6
        #expect(settings.decide(line: try Self.line(message: "x;member-0042;y"), now: Self.readTime) == .type(text: "M:member", source: .vas))
    }

    @Test(arguments: ["member\n0042", "rm -rf /", "0042\u{1B}[2J", "member\r", "a\u{7F}b", "<script>"])
    func aHostileMessageIsNotTyped(_ message: String) throws {
        guard case .refuse(let why) = Self.settings.decide(line: try Self.line(message: message), now: Self.readTime) else {
            Issue.record("\(message.debugDescription) was not refused")
            return
        }
        #expect(why.contains("not in `allowed`"), "\(why)")
        #expect(!why.contains(message), "the refusal must not quote the text: \(why)")
    }

    @Test func eachSourceMayHaveItsOwnTemplate() throws {
        let settings = try KeyboardSettings.parse(
            "[keyboard]\ntemplate = \"T:{value}\"\nmax_age_ms = 3000\n[keyboard.templates]\nvas = \"V:{value}:{uid}\"\n", file: "k.toml")
        #expect(settings.decide(line: try Self.line(message: "0042"), now: Self.readTime) == .type(text: "V:0042:04A23C1A7F2D80", source: .vas))
        var other = settings
        other.templates = [:]
        #expect(other.decide(line: try Self.line(message: "0042"), now: Self.readTime) == .type(text: "T:0042", source: .vas))
    }

    @Test func anOverlongMessageIsNotTyped() throws {
        let decision = Self.settings.decide(line: try Self.line(message: String(repeating: "7", count: 65)), now: Self.readTime)
        guard case .refuse(let why) = decision else {
            Issue.record("not refused: \(decision)")
            return
        }
        #expect(why.contains("max_length"))
    }

    @Test func aReadOlderThanMaxAgeIsDroppedAndOtherReadersAreIgnored() throws {
        let stale = Self.settings.decide(line: try Self.line(message: "0042"), now: Self.readTime.addingTimeInterval(3.5))
        guard case .refuse(let why) = stale else {
            Issue.record("a stale read was not refused: \(stale)")
            return
        }
        #expect(why.contains("max_age_ms"))
        var settings = Self.settings
        settings.readers = ["pcsc:Identiv"]
        #expect(settings.decide(line: try Self.line(message: "0042"), now: Self.readTime) == .ignore)
    }

    @Test func theFileIsReadAndABadKeyIsNamedWithItsLine() throws {
        let settings = try KeyboardSettings.parse(
            "[keyboard]\noutput = \"x11\"\nlayout = \"de\"\nsuffix = \"tab\"\nsources = [\"smarttap\", \"vas\"]\nkey_delay_ms = 20\n", file: "/etc/passtap/keyboard.toml")
        #expect(settings.output == .x11)
        #expect(settings.layout == "de")
        #expect(settings.suffix == .tab)
        #expect(settings.sources == [.smarttap, .vas])
        #expect(settings.keyDelayMilliseconds == 20)
        #expect(throws: ConfigurationError(file: "k.toml", line: 3, keyPath: "keyboard.suffix", problem: "expected \"enter\", \"tab\" or \"none\", found \"return\"")) {
            try KeyboardSettings.parse("[keyboard]\nlayout = \"de\"\nsuffix = \"return\"\n", file: "k.toml")
        }
        #expect(throws: ConfigurationError.self) { try KeyboardSettings.parse("[keyboard]\nallowed = \"abc\\n\"\n", file: "k.toml") }
        #expect(throws: ConfigurationError.self) { try KeyboardSettings.parse("[keyboard]\nkey_delay_ms = 900\n", file: "k.toml") }
        #expect(throws: ConfigurationError.self) { try KeyboardSettings.parse("[keyboard.templates]\nvas = \"{value}\\t\"\n", file: "k.toml") }
        #expect(throws: ConfigurationError.self) { try KeyboardSettings.parse("[keyboard.templates]\nbarcode = \"{value}\"\n", file: "k.toml") }
    }
}
