public import PassTapCore

extension Configuration {
    /// `[feedback]`: what a reader shows and sounds after each tap, and on the POS's verdict
    /// (docs/feedback.md). Off by default; a reload puts it in force at the next tap.
    public struct Feedback: FeatureSettings {
        /// `enabled`: play a pattern on every reader that takes one, after each tap's result is
        /// published.
        public var enabled: Bool = false
        /// `silence_detection_beep`: turn off the reader's own beep on card detection (it beeps
        /// for any card, pass or not) when the reader appears; `false` leaves it as it is.
        public var silenceDetectionBeep: Bool = true
        /// The pattern of each outcome: the built-in ones (``defaultPatterns``), with each
        /// `[[feedback.patterns]]` entry in its outcome's place.
        public var patterns: [FeedbackOutcome: FeedbackPattern] = Feedback.defaultPatterns
        /// `[[feedback.readers]]`: readers whose model their name does not say, by name prefix.
        public var readers: [ReaderModelOverride] = []

        /// The defaults of the shipped config (off).
        public init() {}

        /// The built-in patterns: a pass one green flash and beep; no pass, orange; an error,
        /// three short red blinks and beeps; a tag, green; the POS's accepted, a long green;
        /// refused, a long red with two beeps.
        public static let defaultPatterns: [FeedbackOutcome: FeedbackPattern] = [
            .pass: FeedbackPattern(led: .green, onMilliseconds: 200, buzzer: true),
            .noPass: FeedbackPattern(led: .both, onMilliseconds: 500, buzzer: false),
            .error: FeedbackPattern(led: .red, onMilliseconds: 100, offMilliseconds: 100, repeats: 3, buzzer: true),
            .tag: FeedbackPattern(led: .green, onMilliseconds: 200, buzzer: true),
            .accepted: FeedbackPattern(led: .green, onMilliseconds: 1000, buzzer: false),
            .refused: FeedbackPattern(led: .red, onMilliseconds: 300, offMilliseconds: 200, repeats: 2, buzzer: true),
        ]

        /// The model of the reader named `readerName`: the first override whose prefix the name
        /// starts with (`none`: no feedback), else what the name says.
        public func model(ofReaderNamed readerName: String) -> FeedbackModel? {
            if let override = readers.first(where: { readerName.hasPrefix($0.namePrefix) }) { return override.model }
            return FeedbackModel(readerName: readerName)
        }
    }

    /// One `[[feedback.readers]]` entry: readers whose PC/SC name starts with `name` are of
    /// `model` (`none`: give them no feedback).
    public struct ReaderModelOverride: Sendable, Hashable {
        /// `name`: a prefix of the PC/SC reader name.
        public var namePrefix: String
        /// `model`; `nil` for `none`.
        public var model: FeedbackModel?

        /// An override.
        public init(namePrefix: String, model: FeedbackModel?) {
            self.namePrefix = namePrefix
            self.model = model
        }
    }

    /// `[feedback]`, kept in ``PassTapCore/Configuration/features`` (its defaults when the file has
    /// no such table).
    public var feedback: Feedback {
        get { self[Feedback.self] }
        set { self[Feedback.self] = newValue }
    }
}
