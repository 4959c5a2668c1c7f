import PassTapCore
import PassTapDaemon
import Testing
import NDEFSettings

/// `[ndef] enabled`: on by default, read from the file, refused when misspelt or mistyped (with
/// file, line and key), and a reload puts a change in force.
@Suite(.timeLimit(.minutes(1))) struct NDEFConfigTests {
    @Test func ndefIsOnByDefaultAndEnabledFalseTurnsItOff() throws {
        #expect(try ConfigLoader.parse("", file: "t.toml").ndef.enabled)
        #expect(try ConfigLoader.parse("[ndef]\n", file: "t.toml").ndef.enabled)
        #expect(try !ConfigLoader.parse("[ndef]\nenabled = false\n", file: "t.toml").ndef.enabled)
    }

    @Test(arguments: [
        ("[ndef]\nenable = false\n", 2, "ndef.enable", "unknown key"),
        ("[ndef]\nenabled = \"no\"\n", 2, "ndef.enabled", "true or false"),
        ("ndef = true\n", 1, "ndef", "expected a table [ndef]"),
    ])
    func aBrokenNDEFSectionIsRefusedNamingTheKey(text: String, line: Int, keyPath: String, mentions: String) {
        do {
            _ = try ConfigLoader.parse(text, file: "t.toml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.file == "t.toml")
            #expect(error.line == line)
            #expect(error.keyPath == keyPath)
            #expect(error.description.contains(mentions), "\(error.description)")
        }
    }

    @Test func aReloadPutsNDEFEnabledInForce() throws {
        let old = try ConfigLoader.parse("", file: "t.toml")
        let new = try ConfigLoader.parse("[ndef]\nenabled = false\n", file: "t.toml")
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.changed == ["ndef.enabled"])
        #expect(plan.restartRequired.isEmpty)
        #expect(!plan.effective.ndef.enabled)
    }
}
