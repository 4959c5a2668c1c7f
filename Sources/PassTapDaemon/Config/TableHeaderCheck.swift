/// Finds a TOML table header that does not begin with a key, before TOMLKit sees the text.
///
/// toml++ 3 (inside TOMLKit 0.6.0) enters its key parser from a table header without checking the
/// first character: `[~x]`, `[[@x]]` or a `[` alone on its line trips
/// `TOML_ASSERT_ASSUME(is_bare_key_character(*cp) || is_string_delimiter(*cp))` in
/// `parser::parse_key()`, an `assert` that aborts passtapd (and `--check-config`) instead of
/// refusing the file. The config fuzz target found it (docs/reliability.md).
///
/// A header is a `[` or `[[` that begins an expression (TOML 1.0: `table = std-table / array-table`
/// on a line of its own), so this walks the text as TOML does: strings (basic, literal and their
/// multi-line forms), comments, and arrays and inline tables of values, which may span lines and
/// hold a `[` at the start of one. After the bracket(s) and spaces or tabs, a header must go on
/// with a bare key character (`A-Za-z0-9_-`), a quote, or `]` (toml++ reports an empty key
/// itself). Anything else in the text is left to toml++.
enum TableHeaderCheck {
    /// Where a header breaks the rule, and what it holds instead of a key.
    struct Problem: Equatable {
        var line: Int
        var found: String
    }

    static func firstProblem(in text: String) -> Problem? {
        var bytes = Array(text.utf8)
        // toml++ skips one UTF-8 byte-order mark at the start; so does this, or the first header
        // would not be at the start of an expression.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var scanner = Scanner(bytes: bytes)
        return scanner.run()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        /// Open arrays and inline tables of values.
        var depth = 0
        /// Nothing but whitespace and comments since the last line break outside a value.
        var atExpressionStart = true
        /// Inside a header's brackets (until the line ends).
        var inHeader = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func run() -> Problem? {
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\n"):
                    line += 1
                    index += 1
                    inHeader = false
                    if depth == 0 { atExpressionStart = true }
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    index += 1
                case UInt8(ascii: "#"):
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipString(quote: byte)
                    atExpressionStart = false
                case UInt8(ascii: "["):
                    if atExpressionStart, depth == 0 {
                        if let problem = header() { return problem }
                    } else {
                        if !inHeader { depth += 1 }
                        index += 1
                    }
                    atExpressionStart = false
                case UInt8(ascii: "{"):
                    depth += 1
                    index += 1
                    atExpressionStart = false
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if !inHeader { depth = max(0, depth - 1) }
                    index += 1
                    atExpressionStart = false
                default:
                    index += 1
                    atExpressionStart = false
                }
            }
            return nil
        }

        /// At a header's `[`: checks what follows the bracket(s) and moves past them.
        mutating func header() -> Problem? {
            inHeader = true
            index += 1
            let hadSpace = skipSpaces()
            if index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                // `[ [` is toml++'s own error ("brackets must be contiguous").
                guard !hadSpace else { return nil }
                index += 1
                skipSpaces()
            }
            guard index < bytes.count else { return nil }
            let next = bytes[index]
            if Self.isBareKeyCharacter(next) || next == UInt8(ascii: "\"") || next == UInt8(ascii: "'") || next == UInt8(ascii: "]") {
                return nil
            }
            return Problem(line: line, found: describe(at: index))
        }

        @discardableResult
        mutating func skipSpaces() -> Bool {
            let start = index
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
            return index > start
        }

        /// Moves past a string starting at `index`: `"…"`, `'…'` (both end at a line break at the
        /// latest), `"""…"""` or `'''…'''` (up to two more quotes belong to the content). Only
        /// basic strings have escapes.
        mutating func skipString(quote: UInt8) {
            let multiLine = index + 2 < bytes.count && bytes[index + 1] == quote && bytes[index + 2] == quote
            index += multiLine ? 3 : 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { line += 1 }
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\n") {
                    guard multiLine else { return }
                    line += 1
                }
                if byte == quote {
                    if !multiLine {
                        index += 1
                        return
                    }
                    if index + 2 < bytes.count, bytes[index + 1] == quote, bytes[index + 2] == quote {
                        index += 3
                        var extra = 0
                        while extra < 2, index < bytes.count, bytes[index] == quote {
                            index += 1
                            extra += 1
                        }
                        return
                    }
                }
                index += 1
            }
        }

        /// The character at `position`, for a person: `'~'`, or `U+0006` when it is not printable ASCII.
        func describe(at position: Int) -> String {
            let byte = bytes[position]
            if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
            let scalar = String(decoding: bytes[position..<min(position + 4, bytes.count)], as: UTF8.self).unicodeScalars.first
            let value = scalar.map { String($0.value, radix: 16, uppercase: true) } ?? String(byte, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - value.count)) + value
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
    }
}
