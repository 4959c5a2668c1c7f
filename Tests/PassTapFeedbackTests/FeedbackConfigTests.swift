import FeedbackSettings
import PassTapConfig
import PassTapCore
import Testing

/// `[feedback]` as the loader reads it: the patterns over the built-in ones, the reader models,
/// and a clear refusal for each mistake.
@Suite struct FeedbackConfigTests {
    func parse(_ text: String) throws -> Configuration {
        try ConfigLoader.parse(text, file: "t.toml")
    }

    func refusal(_ text: String) -> ConfigurationError? {
        do {
            _ = try ConfigLoader.parse(text, file: "t.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test func aPatternReplacesTheBuiltInOneKeyByKey() throws {
        let feedback = try parse(
            """
            [feedback]
            enabled = true
            [[feedback.patterns]]
            outcome = "pass"
            led = "both"
            repeats = 2
            [[feedback.readers]]
            name = "Generic"
            model = "acr1252u"
            """
        ).feedback
        #expect(feedback.enabled && feedback.silenceDetectionBeep)
        let pass = try #require(feedback.patterns[.pass])
        #expect(pass == FeedbackPattern(led: .both, onMilliseconds: 200, repeats: 2, buzzer: true))
        #expect(feedback.patterns[.error] == Configuration.Feedback.defaultPatterns[.error])
        #expect(feedback.model(ofReaderNamed: "Generic CCID 00 00") == .acr1252u)
        #expect(feedback.model(ofReaderNamed: "ACS ACR122U PICC Interface 00 00") == .acr122u)
    }

    @Test(arguments: [
        ("[feedback]\nenable = true", 2, "feedback.enable", "unknown key"),
        ("[[feedback.patterns]]\nled = \"green\"", 1, "feedback.patterns[0].outcome", "needs an outcome"),
        ("[[feedback.patterns]]\noutcome = \"win\"", 2, "feedback.patterns[0].outcome", "expected one of \"pass\""),
        ("[[feedback.patterns]]\noutcome = \"pass\"\nled = \"blue\"", 3, "feedback.patterns[0].led", "found \"blue\""),
        ("[[feedback.patterns]]\noutcome = \"pass\"\non_ms = 150", 3, "feedback.patterns[0].on_ms", "multiple of 100"),
        ("[[feedback.patterns]]\noutcome = \"pass\"\nrepeats = 0", 3, "feedback.patterns[0].repeats", "1"),
        ("[[feedback.patterns]]\noutcome = \"tag\"\n[[feedback.patterns]]\noutcome = \"tag\"", 4, "feedback.patterns[1].outcome", "two [[feedback.patterns]]"),
        ("[[feedback.readers]]\nname = \"X\"\nmodel = \"acr38\"", 3, "feedback.readers[0].model", "found \"acr38\""),
        ("[[feedback.readers]]\nmodel = \"acr122u\"", 1, "feedback.readers[0].name", "needs a name"),
    ])
    func eachMistakeIsNamedWithItsLine(_ text: String, _ line: Int, _ key: String, _ words: String) throws {
        let error = try #require(refusal(text))
        #expect(error.keyPath == key, "\(error)")
        #expect(error.line == line, "\(error)")
        #expect(error.problem.contains(words), "\(error)")
    }
}
