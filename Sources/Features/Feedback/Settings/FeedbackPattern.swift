/// What a reader shows and sounds for one outcome (`[feedback.<outcome>]`, docs/feedback.md): its
/// LED colour, how long it stays lit and dark, how many times, and whether the buzzer sounds while
/// it is lit. Readers play it in their firmware; PassTap sends it in one command and never waits
/// for it to end.
public struct FeedbackPattern: Sendable, Hashable {
    /// The LED colour: ACS's bi-colour LED lights red, green, or both (orange).
    public enum LED: String, Sendable, Hashable, CaseIterable {
        /// No LED: the buzzer alone, or nothing.
        case off
        case red
        case green
        /// Red and green together, seen as orange.
        case both
    }

    /// `led`.
    public var led: LED
    /// `on_ms`: how long the LED is lit (and the buzzer sounds) in each repeat; 0 to 25 500, in
    /// steps of 100 ms (the ACR122U's unit).
    public var onMilliseconds: Int
    /// `off_ms`: how long it is dark between repeats; 0 to 25 500, in steps of 100 ms.
    public var offMilliseconds: Int
    /// `repeats`: 1 to 255.
    public var repeats: Int
    /// `buzzer`: whether the buzzer sounds while the LED is lit.
    public var buzzer: Bool

    /// The longest lit or dark time a pattern can ask for.
    public static let maximumMilliseconds = 25_500
    /// The most repeats a pattern can ask for.
    public static let maximumRepeats = 255

    /// A pattern; the loader checks the ranges.
    public init(led: LED, onMilliseconds: Int, offMilliseconds: Int = 0, repeats: Int = 1, buzzer: Bool) {
        self.led = led
        self.onMilliseconds = onMilliseconds
        self.offMilliseconds = offMilliseconds
        self.repeats = repeats
        self.buzzer = buzzer
    }

    /// How long the reader takes to play it.
    public var duration: Duration {
        .milliseconds((onMilliseconds + offMilliseconds) * repeats)
    }
}
