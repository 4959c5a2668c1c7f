/// The two status bytes SW1 SW2 that end every response APDU (ISO/IEC 7816-4 §5.6).
public struct StatusWord: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// `SW1 << 8 | SW2`.
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Creates a status word from its two bytes.
    public init(sw1: UInt8, sw2: UInt8) { rawValue = UInt16(sw1) << 8 | UInt16(sw2) }

    /// The first status byte.
    public var sw1: UInt8 { UInt8(rawValue >> 8) }
    /// The second status byte.
    public var sw2: UInt8 { UInt8(rawValue & 0xFF) }
    /// Upper-case hex, four digits: `6A82`.
    public var hex: String { [sw1, sw2].hexString }
    /// `true` for `9000` only.
    public var isSuccess: Bool { self == .success }

    public var description: String { hex }

    /// `9000`: normal processing.
    public static let success = StatusWord(rawValue: 0x9000)
    /// `6287`: selected record or file deactivated (Apple VAS: pass not released yet).
    public static let dataNotActivated = StatusWord(rawValue: 0x6287)
    /// `6700`: wrong length.
    public static let wrongLength = StatusWord(rawValue: 0x6700)
    /// `6982`: security status not satisfied.
    public static let securityStatusNotSatisfied = StatusWord(rawValue: 0x6982)
    /// `6984`: reference data not usable (Apple VAS: user intervention needed).
    public static let referenceDataNotUsable = StatusWord(rawValue: 0x6984)
    /// `6A80`: incorrect parameters in the command data field.
    public static let incorrectData = StatusWord(rawValue: 0x6A80)
    /// `6A82`: file or application not found.
    public static let fileNotFound = StatusWord(rawValue: 0x6A82)
    /// `6A83`: record not found (Apple VAS: no such pass).
    public static let referencedDataNotFound = StatusWord(rawValue: 0x6A83)
    /// `6B00`: wrong parameters P1-P2.
    public static let wrongParameters = StatusWord(rawValue: 0x6B00)
    /// `6D00`: instruction code not supported or invalid.
    public static let instructionNotSupported = StatusWord(rawValue: 0x6D00)
    /// `6E00`: class not supported.
    public static let classNotSupported = StatusWord(rawValue: 0x6E00)
}
