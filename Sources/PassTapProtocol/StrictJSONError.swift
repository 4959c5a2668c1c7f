/// Why a text is not strict JSON (RFC 8259), and where: the byte offset of the first byte that
/// breaks the grammar. Equal by ``code``.
public struct StrictJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What broke the grammar.
    public enum Code: Sendable, Hashable {
        /// U+FEFF at the start. RFC 8259, section 8.1: "Implementations MUST NOT add a byte order
        /// mark"; a parser "MAY ignore" one, and we do not.
        case byteOrderMark
        /// A byte sequence that is not UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
        /// above U+10FFFF). Section 8.1: JSON text "MUST be encoded using UTF-8".
        case invalidUTF8
        /// `//` or `/*`: JSON has no comments.
        case comment
        /// `,` right before `]` or `}`.
        case trailingComma
        /// A raw character below U+0020 inside a string (section 7: "the control characters
        /// (U+0000 through U+001F)" must be escaped).
        case controlCharacterInString
        /// A backslash not followed by one of `"\/bfnrt` or `u` and four hex digits.
        case invalidEscape
        /// A `\u` escape of a surrogate that is not half of a pair (section 8.2 leaves these
        /// "unpredictable"; we refuse them so that every decoder reads the same text).
        case unpairedSurrogate
        /// A number outside section 6's grammar: a leading zero, `+`, a lone `.` or `e`, hex...
        case invalidNumber
        /// A byte that cannot start or continue anything here (a bare word, a single quote...).
        case unexpectedByte(UInt8)
        /// The text ended inside a value.
        case unexpectedEnd
        /// More after the one value a JSON text holds.
        case trailingData
        /// Arrays and objects nested deeper than ``StrictJSON/maximumDepth``.
        case tooDeep
        /// A member name that the object already has (escapes decoded): section 4 leaves such an
        /// object's meaning "unpredictable", and parsers disagree on which member wins.
        case duplicateName
    }

    /// What broke the grammar.
    public let code: Code
    /// The offset of the offending byte from the start of the text.
    public let offset: Int

    /// Creates an error.
    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let what: String
        switch code {
        case .byteOrderMark: what = "a byte-order mark (U+FEFF) is not allowed"
        case .invalidUTF8: what = "invalid UTF-8"
        case .comment: what = "comments are not JSON"
        case .trailingComma: what = "a trailing comma is not JSON"
        case .controlCharacterInString: what = "a control character in a string must be escaped"
        case .invalidEscape: what = "invalid escape in a string"
        case .unpairedSurrogate: what = "a \\u escape of an unpaired surrogate"
        case .invalidNumber: what = "invalid number"
        case .unexpectedByte(let byte):
            if (0x21...0x7E).contains(byte) {
                what = "unexpected '\(Character(Unicode.Scalar(byte)))'"
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                what = "unexpected byte 0x\(hex.count == 1 ? "0" + hex : hex)"
            }
        case .unexpectedEnd: what = "the text ends inside a value"
        case .trailingData: what = "more text after the JSON value"
        case .tooDeep: what = "nested deeper than \(StrictJSON.maximumDepth) levels"
        case .duplicateName: what = "a member name repeated in one object"
        }
        return "\(what) at byte \(offset)"
    }
}
