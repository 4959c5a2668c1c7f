package import ConfigKit
public import PassTapCore

/// `[feedback]`: the reader feedback's switch, its patterns and its reader models
/// (docs/configuration.md, "Reader feedback"; docs/feedback.md).
package enum FeedbackSection: ConfigSection {
    package static let table = "feedback"
    package static let opensFiles = false
    package static let keys = [
        "feedback.enabled", "feedback.silence_detection_beep",
        "feedback.patterns.outcome", "feedback.patterns.led", "feedback.patterns.on_ms", "feedback.patterns.off_ms",
        "feedback.patterns.repeats", "feedback.patterns.buzzer",
        "feedback.readers.name", "feedback.readers.model",
    ]
    /// A reload puts each in force at the next tap (the detection beep: for readers that appear
    /// after it).
    package static let settings: [ConfigSetting] = [
        ConfigSetting("feedback.enabled", \.feedback.enabled),
        ConfigSetting("feedback.silence_detection_beep", \.feedback.silenceDetectionBeep),
        ConfigSetting("feedback.patterns", \.feedback.patterns),
        ConfigSetting("feedback.readers", \.feedback.readers),
    ]
    /// The most `[[feedback.readers]]` entries.
    static let maximumReaders = 32

    /// Reads `[feedback]`.
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        var feedback = Configuration.Feedback()
        feedback.enabled = try table.bool("enabled") ?? feedback.enabled
        feedback.silenceDetectionBeep = try table.bool("silence_detection_beep") ?? feedback.silenceDetectionBeep
        // A misspelt key is named before the entries are judged.
        table.declare("patterns", "readers")
        try table.rejectUnknownKeys()
        var given: Set<FeedbackOutcome> = []
        for var entry in try table.arrayOfTables("patterns", maximum: FeedbackOutcome.allCases.count, what: "patterns (one per outcome)") {
            let (outcome, pattern) = try self.pattern(&entry)
            guard given.insert(outcome).inserted else {
                throw entry.error("outcome", "\"\(outcome.rawValue)\" has two [[feedback.patterns]]: keep one")
            }
            feedback.patterns[outcome] = pattern
        }
        for var entry in try table.arrayOfTables("readers", maximum: maximumReaders, what: "reader models") {
            feedback.readers.append(try reader(&entry))
        }
        configuration.feedback = feedback
    }

    /// One `[[feedback.patterns]]`: its outcome and its pattern, every key but `outcome` taking
    /// the built-in pattern's value when left out.
    private static func pattern(_ entry: inout TableReader) throws(ConfigurationError) -> (FeedbackOutcome, FeedbackPattern) {
        let outcomes = FeedbackOutcome.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let given = try entry.string("outcome")
        entry.declare("led", "on_ms", "off_ms", "repeats", "buzzer")
        try entry.rejectUnknownKeys(context: given.map { "pattern \($0): " } ?? "")
        guard let name = given else {
            throw entry.error("outcome", "every [[feedback.patterns]] needs an outcome: one of \(outcomes)")
        }
        guard let outcome = FeedbackOutcome(rawValue: name) else {
            throw entry.error("outcome", "expected one of \(outcomes), found \"\(name)\"")
        }
        var pattern = Configuration.Feedback.defaultPatterns[outcome] ?? FeedbackPattern(led: .off, onMilliseconds: 0, buzzer: false)
        if let led = try entry.string("led") {
            guard let colour = FeedbackPattern.LED(rawValue: led) else {
                let colours = FeedbackPattern.LED.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw entry.error("led", "expected one of \(colours), found \"\(led)\"")
            }
            pattern.led = colour
        }
        let limit = FeedbackPattern.maximumMilliseconds
        pattern.onMilliseconds = try steps(&entry, "on_ms", limit: limit) ?? pattern.onMilliseconds
        pattern.offMilliseconds = try steps(&entry, "off_ms", limit: limit) ?? pattern.offMilliseconds
        pattern.repeats = try entry.integer("repeats", in: 1...FeedbackPattern.maximumRepeats) ?? pattern.repeats
        pattern.buzzer = try entry.bool("buzzer") ?? pattern.buzzer
        return (outcome, pattern)
    }

    /// A time in 100 ms steps (the readers' unit), 0 to `limit`.
    private static func steps(_ entry: inout TableReader, _ key: String, limit: Int) throws(ConfigurationError) -> Int? {
        guard let value = try entry.integer(key, in: 0...limit) else { return nil }
        guard value % 100 == 0 else {
            throw entry.error(key, "expected a multiple of 100 (readers count in 100 ms steps), found \(value)")
        }
        return value
    }

    /// One `[[feedback.readers]]`: a name prefix and its model.
    private static func reader(_ entry: inout TableReader) throws(ConfigurationError) -> Configuration.ReaderModelOverride {
        let models = (FeedbackModel.allCases.map(\.rawValue) + ["none"]).map { "\"\($0)\"" }.joined(separator: ", ")
        let given = try entry.string("name")
        entry.declare("model")
        try entry.rejectUnknownKeys(context: given.map { "reader \($0): " } ?? "")
        guard let name = given, !name.isEmpty else {
            throw entry.error("name", "every [[feedback.readers]] needs a name: the start of the reader's PC/SC name (passtap readers lists them)")
        }
        guard let written = try entry.string("model") else {
            throw entry.error("model", "reader \"\(name)\": expected a model, one of \(models)")
        }
        let model = FeedbackModel(rawValue: written)
        guard model != nil || written == "none" else {
            throw entry.error("model", "reader \"\(name)\": expected one of \(models), found \"\(written)\"")
        }
        return Configuration.ReaderModelOverride(namePrefix: name, model: model)
    }
}
