public import FeedbackSettings

/// The commands of ``FeedbackModel``s, as bytes.
public enum FeedbackCommand {
    /// `FF 00 40 <LED state control> 04 <T1> <T2> <repeats> <buzzer link>`: the pattern, played
    /// by the ACR122U (and the ACR1252U) in firmware. T1 is the lit time and T2 the dark time, in
    /// 100 ms units; the buzzer, linked to T1, sounds while the LED is lit. The LED state control
    /// byte updates and blinks only the pattern's colours and leaves them off at the end:
    /// bit 0/1 final red/green, bit 2/3 red/green update mask, bit 4/5 initial red/green blinking
    /// state, bit 6/7 red/green blinking mask.
    public static func ledAndBuzzer(_ pattern: FeedbackPattern) -> [UInt8] {
        let red: UInt8 = 0b0101_0100  // update red, blink it, starting lit, ending off
        let green: UInt8 = 0b1010_1000
        let control: UInt8
        switch pattern.led {
        case .off: control = 0
        case .red: control = red
        case .green: control = green
        case .both: control = red | green
        }
        let link: UInt8 = pattern.buzzer ? 0x01 : 0x00
        return [
            0xFF, 0x00, 0x40, control, 0x04,
            units(pattern.onMilliseconds), units(pattern.offMilliseconds), UInt8(clamping: max(1, pattern.repeats)), link,
        ]
    }

    /// Whether the answer to ``ledAndBuzzer(_:)`` says the reader took it: `90 xx`, xx being the
    /// LED state; `63 00` is a refusal.
    public static func tookLEDAndBuzzer(_ answer: [UInt8]) -> Bool {
        answer.count == 2 && answer[0] == 0x90
    }

    /// `FF 00 52 00 00`: the ACR122U's own beep on card detection off (`FF 00 52 FF 00` turns it
    /// on). Sent each time the reader appears, on a direct connection.
    public static let detectionBeepOff: [UInt8] = [0xFF, 0x00, 0x52, 0x00, 0x00]
    /// `FF 00 52 FF 00`: the ACR122U's beep on card detection on, as it ships.
    public static let detectionBeepOn: [UInt8] = [0xFF, 0x00, 0x52, 0xFF, 0x00]

    /// `E0 00 00 29 01 xx`: an ACR1252U's LEDs, bit 0 red and bit 1 green.
    public static func escapeLED(_ led: FeedbackPattern.LED) -> [UInt8] {
        let state: UInt8
        switch led {
        case .off: state = 0
        case .red: state = 0x01
        case .green: state = 0x02
        case .both: state = 0x03
        }
        return [0xE0, 0x00, 0x00, 0x29, 0x01, state]
    }

    /// `E0 00 00 28 01 xx`: an ACR1252U's buzzer for xx × 10 ms (at most 2 550 ms).
    public static func escapeBuzzer(milliseconds: Int) -> [UInt8] {
        [0xE0, 0x00, 0x00, 0x28, 0x01, UInt8(clamping: max(0, milliseconds) / 10)]
    }

    /// An ACR1252U's escape commands for `pattern` without a card: its LEDs in the pattern's
    /// colour, then, with `buzzer`, one beep of the pattern's lit time. It has no blink command:
    /// the LEDs stay lit until turned off (``escapeLED(_:)`` with `.off`).
    public static func escapePattern(_ pattern: FeedbackPattern) -> [[UInt8]] {
        var commands = [escapeLED(pattern.led)]
        if pattern.buzzer { commands.append(escapeBuzzer(milliseconds: min(pattern.onMilliseconds, 2550))) }
        return commands
    }

    /// Whether an ACR1252U's answer to an escape command says it took it: `E1 00 00 00 …`.
    public static func tookEscape(_ answer: [UInt8]) -> Bool {
        answer.count >= 5 && answer[0] == 0xE1 && answer[1] == 0 && answer[2] == 0 && answer[3] == 0
    }

    /// `E0 00 00 21 00`: reads an ACR1252U's default behaviour byte.
    public static let escapeReadDefaults: [UInt8] = [0xE0, 0x00, 0x00, 0x21, 0x00]

    /// `E0 00 00 21 01 xx`: writes an ACR1252U's default behaviour byte (kept in its flash).
    public static func escapeWriteDefaults(_ byte: UInt8) -> [UInt8] {
        [0xE0, 0x00, 0x00, 0x21, 0x01, byte]
    }

    /// Bit 3 of the default behaviour byte: the ACR1252U's beep on card detection.
    public static let detectionBeepBit: UInt8 = 0x08

    /// A time in the ACR122U's 100 ms units (0 to 255).
    private static func units(_ milliseconds: Int) -> UInt8 {
        UInt8(clamping: max(0, milliseconds) / 100)
    }
}

/// What a reader's driver says it can do (PC/SC part 10 `CM_IOCTL_GET_FEATURE_REQUEST`,
/// `SCARD_CTL_CODE(3400)`): TLVs of a feature tag, a length of 4 and the control code, big-endian.
/// The escape path is `FEATURE_CCID_ESC_COMMAND` (0x13): libccid lists it, at `SCARD_CTL_CODE(1)`,
/// only with `ifdDriverOptions` 0x0001 in its Info.plist; ACS's acsccid lists it at
/// `SCARD_CTL_CODE(3500)`. Ask, never guess: the same reader can be behind either driver.
public struct ReaderFeatures: Sendable, Hashable {
    /// The control code of each listed feature, by tag.
    public let codes: [UInt8: UInt32]

    /// `CM_IOCTL_GET_FEATURE_REQUEST`'s control code.
    public static let requestCode: UInt32 = 0x4200_0000 + 3400
    /// `FEATURE_CCID_ESC_COMMAND`.
    public static let escapeTag: UInt8 = 0x13

    /// The features in a driver's answer; `nil` for an answer that is not whole TLVs of 4-byte
    /// codes (a driver's bytes are data: refused, never trusted).
    public init?(answer: [UInt8]) {
        var codes: [UInt8: UInt32] = [:]
        var index = 0
        while index < answer.count {
            guard index + 6 <= answer.count, answer[index + 1] == 4 else { return nil }
            let code = answer[(index + 2)..<(index + 6)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            codes[answer[index]] = codes[answer[index]] ?? code
            index += 6
        }
        self.codes = codes
    }

    /// The control code escape commands go to; `nil` when the driver lists none.
    public var escapeCode: UInt32? { codes[Self.escapeTag] }
}
