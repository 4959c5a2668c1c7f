/// Checks that config text is TOML 1.0 by its grammar before TOMLKit parses it, and says where
/// it is not.
///
/// toml++ 3 (inside TOMLKit 0.6.0) calls its sub-parsers on malformed input without checking
/// their preconditions, and guards them with `assert`s that abort the process: passtapd and
/// `--check-config` died with SIGABRT (exit 134) instead of refusing the file. The config fuzz
/// target found three: a table header without a key (`[~x]`, `parse_key()`), a value that begins
/// with `}` in an array (`keys = [}"a"]`, `parse_value()`), and a bad time in a date-time
/// (`parse_time()`); docs/reliability.md. So toml++ is given only text that follows the grammar,
/// where those preconditions hold; what the grammar cannot see (a key defined twice, a table
/// opened twice) is left to toml++, which reports it.
///
/// The grammar is TOML 1.0's ABNF (toml.io/en/v1.0.0), with one restriction: no key of
/// passtapd.toml takes a date or a time, so none is accepted (toml++'s date parsing is where one
/// of its asserts is). The check reads each byte once and never recurses deeper than the text's
/// own arrays and inline tables (capped at ``maximumNesting``).
package enum TOMLSyntaxCheck {
    /// Where the text leaves the grammar, and how.
    package struct Problem: Error, Equatable {
        package var line: Int
        package var message: String
    }

    /// Arrays and inline tables nested deeper than this are refused (toml++ stops at 256).
    static let maximumNesting = 64

    package static func firstProblem(in text: String) -> Problem? {
        var bytes = Array(text.utf8)
        // toml++ skips one UTF-8 byte-order mark at the start; so does this.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var reader = Reader(bytes: bytes)
        do {
            try reader.document()
            return nil
        } catch {
            return error
        }
    }
}

private struct Reader {
    typealias Problem = TOMLSyntaxCheck.Problem

    let bytes: [UInt8]
    var index = 0
    var line = 1
    var nesting = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    func byte(at offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }

    func fail(_ message: String) -> Problem { Problem(line: line, message: message) }

    /// The byte at the cursor, for a person: `'~'`, `U+0006`, or "the end of the file".
    func found() -> String {
        guard let byte = current else { return "the end of the file" }
        if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        let scalar = String(decoding: bytes[index..<min(index + 4, bytes.count)], as: UTF8.self).unicodeScalars.first
        let value = scalar.map { String($0.value, radix: 16, uppercase: true) } ?? String(byte, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - value.count)) + value
    }

    // MARK: Lines

    /// `toml = expression *( newline expression )`
    mutating func document() throws(Problem) {
        while current != nil {
            skipSpaces()
            switch current {
            case nil: return
            case UInt8(ascii: "#"): try comment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): break
            case UInt8(ascii: "["): try table()
            default: try keyValue()
            }
            skipSpaces()
            if current == UInt8(ascii: "#") { try comment() }
            if current != nil { try newline(after: "this line's key, value or table") }
        }
    }

    /// `newline = %x0A / %x0D.0A`
    mutating func newline(after what: String) throws(Problem) {
        switch current {
        case UInt8(ascii: "\n"):
            index += 1
        case UInt8(ascii: "\r") where byte(at: 1) == UInt8(ascii: "\n"):
            index += 2
        case UInt8(ascii: "\r"):
            throw fail("a carriage return must be followed by a line feed")
        default:
            throw fail("expected the end of the line after \(what), found \(found())")
        }
        line += 1
    }

    var atNewline: Bool {
        current == UInt8(ascii: "\n") || (current == UInt8(ascii: "\r") && byte(at: 1) == UInt8(ascii: "\n"))
    }

    mutating func skipSpaces() {
        while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { index += 1 }
    }

    /// `comment = "#" *non-eol`; `non-eol = %x09 / %x20-7E / non-ascii`
    mutating func comment() throws(Problem) {
        index += 1
        while let byte = current, !atNewline {
            guard byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80 else {
                throw fail("a control character (\(found())) in a comment")
            }
            index += 1
        }
    }

    /// `std-table = "[" ws key ws "]"`, `array-table = "[[" ws key ws "]]"`
    mutating func table() throws(Problem) {
        index += 1
        let isArray = current == UInt8(ascii: "[")
        if isArray { index += 1 }
        skipSpaces()
        guard let first = current, Self.startsKey(first) else {
            throw fail("a table header must begin with a key (letters, digits, '_' and '-', or a quoted key), found \(found())")
        }
        try key()
        skipSpaces()
        for _ in 0..<(isArray ? 2 : 1) {
            guard current == UInt8(ascii: "]") else {
                throw fail("expected '\(isArray ? "]]" : "]")' to close the table header, found \(found())")
            }
            index += 1
        }
    }

    /// `keyval = key ws "=" ws val`
    mutating func keyValue() throws(Problem) {
        try key()
        skipSpaces()
        guard current == UInt8(ascii: "=") else { throw fail("expected '=' after the key, found \(found())") }
        index += 1
        skipSpaces()
        try value()
    }

    // MARK: Keys

    /// `key = simple-key *( ws "." ws simple-key )`
    mutating func key() throws(Problem) {
        try simpleKey()
        while true {
            let mark = index
            skipSpaces()
            guard current == UInt8(ascii: ".") else {
                index = mark
                return
            }
            index += 1
            skipSpaces()
            try simpleKey()
        }
    }

    /// `simple-key = basic-string / literal-string / 1*( ALPHA / DIGIT / "-" / "_" )`
    mutating func simpleKey() throws(Problem) {
        switch current {
        case UInt8(ascii: "\""):
            if byte(at: 1) == UInt8(ascii: "\""), byte(at: 2) == UInt8(ascii: "\"") { throw fail("a key cannot be a multi-line string") }
            try singleLineString(UInt8(ascii: "\""))
        case UInt8(ascii: "'"):
            if byte(at: 1) == UInt8(ascii: "'"), byte(at: 2) == UInt8(ascii: "'") { throw fail("a key cannot be a multi-line string") }
            try singleLineString(UInt8(ascii: "'"))
        case let byte? where Self.isBareKeyCharacter(byte):
            while let byte = current, Self.isBareKeyCharacter(byte) { index += 1 }
        default:
            throw fail("expected a key (letters, digits, '_' and '-', or a quoted key), found \(found())")
        }
    }

    static func isBareKeyCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    static func startsKey(_ byte: UInt8) -> Bool {
        isBareKeyCharacter(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    // MARK: Values

    /// `val = string / boolean / array / inline-table / date-time / float / integer`
    mutating func value() throws(Problem) {
        switch current {
        case nil, UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
            throw fail("a value is missing (a value must be on the same line as its key)")
        case let quote? where quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"):
            if byte(at: 1) == quote, byte(at: 2) == quote { try multiLineString(quote) } else { try singleLineString(quote) }
        case UInt8(ascii: "["):
            try nested { (reader: inout Reader) throws(Problem) in try reader.array() }
        case UInt8(ascii: "{"):
            try nested { (reader: inout Reader) throws(Problem) in try reader.inlineTable() }
        default:
            try scalar()
        }
    }

    mutating func nested(_ body: (inout Reader) throws(Problem) -> Void) throws(Problem) {
        guard nesting < TOMLSyntaxCheck.maximumNesting else {
            throw fail("arrays and inline tables nested deeper than \(TOMLSyntaxCheck.maximumNesting)")
        }
        nesting += 1
        try body(&self)
        nesting -= 1
    }

    /// `array = "[" [ array-values ] ws-comment-newline "]"`, values separated by commas, a
    /// trailing comma allowed.
    mutating func array() throws(Problem) {
        index += 1
        while true {
            try spaceCommentsAndNewlines()
            if current == UInt8(ascii: "]") {
                index += 1
                return
            }
            if current == nil { throw fail("the array is not closed with ']'") }
            try value()
            try spaceCommentsAndNewlines()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw fail("expected ',' or ']' after a value in the array, found \(found())")
            }
        }
    }

    /// `ws-comment-newline = *( wschar / [ comment ] newline )`
    mutating func spaceCommentsAndNewlines() throws(Problem) {
        while true {
            skipSpaces()
            if current == UInt8(ascii: "#") { try comment() }
            guard current == UInt8(ascii: "\n") || current == UInt8(ascii: "\r") else { return }
            try newline(after: "a value")
        }
    }

    /// `inline-table = "{" ws [ keyval *( ws "," ws keyval ) ] ws "}"`, on one line, no trailing comma.
    mutating func inlineTable() throws(Problem) {
        index += 1
        skipSpaces()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            try keyValue()
            skipSpaces()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipSpaces()
                if current == UInt8(ascii: "}") { throw fail("an inline table cannot end with a comma") }
            case UInt8(ascii: "}"):
                index += 1
                return
            default:
                throw fail("expected ',' or '}' in the inline table (which stays on one line), found \(found())")
            }
        }
    }

    /// A boolean, an integer or a float: the bytes up to the next space, comma, bracket, brace,
    /// comment or line end, checked against TOML's number grammar.
    mutating func scalar() throws(Problem) {
        let start = index
        while let byte = current, !Self.endsScalar(byte) { index += 1 }
        let token = Array(bytes[start..<index])
        if token.isEmpty { throw fail("expected a value, found \(found())") }
        guard Self.isBoolean(token) || Self.isNumber(token) else {
            if Self.looksLikeDateOrTime(token) { throw fail("dates and times are not used in passtapd.toml") }
            // An unquoted URL (a webhook url without its quotes) shows only scheme, host and
            // port: its path or query may hold a secret, and a rejected reload's error is broadcast.
            let text = String(decoding: token, as: UTF8.self)
            let shown =
                text.contains("://")
                ? URLQuote.origin(of: text)
                : String(decoding: token.prefix(32), as: UTF8.self).unicodeScalars
                    .map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }
                    .joined()
            throw fail("expected a value (a string in quotes, a number, true or false, an array or an inline table), found \(shown)")
        }
    }

    static func endsScalar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","), UInt8(ascii: "]"),
            UInt8(ascii: "}"), UInt8(ascii: "#"):
            return true
        default:
            return false
        }
    }

    static func isBoolean(_ token: [UInt8]) -> Bool {
        token == Array("true".utf8) || token == Array("false".utf8)
    }

    static func looksLikeDateOrTime(_ token: [UInt8]) -> Bool {
        func digits(_ count: Int) -> Bool { token.count > count && token.prefix(count).allSatisfy(isDigit) }
        return (digits(4) && token[4] == UInt8(ascii: "-")) || (digits(2) && token[2] == UInt8(ascii: ":"))
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `integer` or `float` of TOML 1.0: `[+-]` then `inf`/`nan`, or a decimal integer part (no
    /// leading zero) with an optional fraction and exponent; or, unsigned, `0x`/`0o`/`0b` digits.
    /// Underscores only between two digits.
    static func isNumber(_ token: [UInt8]) -> Bool {
        var rest = token[...]
        var signed = false
        if let first = rest.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            signed = true
            rest = rest.dropFirst()
        }
        if rest.elementsEqual("inf".utf8) || rest.elementsEqual("nan".utf8) { return true }
        if !signed, rest.count > 2, rest.first == UInt8(ascii: "0") {
            let digits = rest.dropFirst(2)
            switch rest[rest.startIndex + 1] {
            case UInt8(ascii: "x"): return isDigits(digits, isHexDigit)
            case UInt8(ascii: "o"): return isDigits(digits) { (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }
            case UInt8(ascii: "b"): return isDigits(digits) { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }
            default: break
            }
        }
        // Integer part: `0`, or a digit 1–9 and more digits.
        let integerEnd = rest.firstIndex { !isDigit($0) && $0 != UInt8(ascii: "_") } ?? rest.endIndex
        let integer = rest[rest.startIndex..<integerEnd]
        guard isDigits(integer, isDigit), integer.first != UInt8(ascii: "0") || integer.count == 1 else { return false }
        rest = rest[integerEnd...]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let end = rest.firstIndex { !isDigit($0) && $0 != UInt8(ascii: "_") } ?? rest.endIndex
            guard isDigits(rest[rest.startIndex..<end], isDigit) else { return false }
            rest = rest[end...]
        }
        if let first = rest.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { rest = rest.dropFirst() }
            guard isDigits(rest, isDigit) else { return false }
            rest = rest[rest.endIndex...]
        }
        return rest.isEmpty
    }

    /// One or more digits, with single underscores only between digits.
    static func isDigits(_ run: ArraySlice<UInt8>, _ isDigit: (UInt8) -> Bool) -> Bool {
        guard let first = run.first, let last = run.last, isDigit(first), isDigit(last) else { return false }
        var previousWasUnderscore = false
        for byte in run {
            if byte == UInt8(ascii: "_") {
                if previousWasUnderscore { return false }
                previousWasUnderscore = true
            } else {
                guard isDigit(byte) else { return false }
                previousWasUnderscore = false
            }
        }
        return true
    }

    // MARK: Strings

    /// `basic-string = '"' *basic-char '"'` (escapes) or `literal-string = "'" *literal-char "'"`
    /// (none): no line break, no control character but tab.
    mutating func singleLineString(_ quote: UInt8) throws(Problem) {
        let name = quote == UInt8(ascii: "\"") ? "'\"'" : "\"'\""
        index += 1
        while true {
            switch current {
            case nil: throw fail("the string is not closed with \(name)")
            case quote:
                index += 1
                return
            case UInt8(ascii: "\\") where quote == UInt8(ascii: "\""): try escape()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): throw fail("the string is not closed with \(name) before the end of its line")
            case let byte?:
                try checkStringCharacter(byte)
                index += 1
            }
        }
    }

    /// `ml-basic-string = '"""' [ newline ] body '"""'` (escapes and line-ending backslashes) or
    /// `ml-literal-string = "'''" [ newline ] body "'''"` (none): line breaks, and up to two
    /// quotes together inside.
    mutating func multiLineString(_ quote: UInt8) throws(Problem) {
        let name = quote == UInt8(ascii: "\"") ? "'\"\"\"'" : "\"'''\""
        index += 3
        while true {
            switch current {
            case nil: throw fail("the multi-line string is not closed with \(name)")
            case quote:
                if try closesMultiLine(quote: quote) { return }
            case UInt8(ascii: "\\") where quote == UInt8(ascii: "\""):
                try backslashInMultiLineString()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try newline(after: "a line of a multi-line string")
            case let byte?:
                try checkStringCharacter(byte)
                index += 1
            }
        }
    }

    /// `mlb-escaped-nl = "\" ws newline *( wschar / newline )`, or an escape.
    mutating func backslashInMultiLineString() throws(Problem) {
        var look = 1
        while byte(at: look) == UInt8(ascii: " ") || byte(at: look) == UInt8(ascii: "\t") { look += 1 }
        guard byte(at: look) == UInt8(ascii: "\n") || (byte(at: look) == UInt8(ascii: "\r") && byte(at: look + 1) == UInt8(ascii: "\n")) else {
            try escape()
            return
        }
        index += look
        try newline(after: "a line-ending backslash")
        while true {
            skipSpaces()
            guard current == UInt8(ascii: "\n") || current == UInt8(ascii: "\r") else { return }
            try newline(after: "a line-ending backslash")
        }
    }

    /// At a quote inside a multi-line string: a run of one or two is content; three to five end
    /// the string (the first ones being content); six or more are not allowed.
    mutating func closesMultiLine(quote: UInt8) throws(Problem) -> Bool {
        var run = 0
        while byte(at: run) == quote { run += 1 }
        if run > 5 { throw fail("more than five quotes together in a multi-line string") }
        index += run
        return run >= 3
    }

    /// Tab, printable ASCII and anything beyond ASCII; no other control character (DEL included).
    func checkStringCharacter(_ byte: UInt8) throws(Problem) {
        guard byte == 0x09 || (0x20...0x7E).contains(byte) || byte >= 0x80 else {
            throw fail("a control character (\(found())) in a string: write it as an escape such as \\u0007")
        }
    }

    /// `escaped = "\" ( '"' / "\" / "b" / "f" / "n" / "r" / "t" / "u" 4HEXDIG / "U" 8HEXDIG )`,
    /// the code point a Unicode scalar value.
    mutating func escape() throws(Problem) {
        index += 1
        switch current {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"),
            UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = current == UInt8(ascii: "u") ? 4 : 8
            index += 1
            var scalar: UInt32 = 0
            for _ in 0..<count {
                guard let byte = current, Self.isHexDigit(byte) else {
                    throw fail("a \\u or \\U escape needs \(count) hex digits, found \(found())")
                }
                let digit = Self.isDigit(byte) ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
                scalar = scalar << 4 | UInt32(digit)
                index += 1
            }
            guard Unicode.Scalar(scalar) != nil else {
                throw fail("the escape \\u{\(String(scalar, radix: 16, uppercase: true))} is not a Unicode scalar value")
            }
        default:
            throw fail("\\\(found()) is not an escape in a string (use \\\\ for a backslash)")
        }
    }
}
