public import Foundation
import ISO7816

extension StrictJSON {
    /// `bytes`, one strict JSON text, with every character of ``UntrustedText``'s table that
    /// stands raw inside a string written as a `\uXXXX` escape: what `passtap --json` prints.
    ///
    /// JSON itself requires escapes only for C0 controls, so a daemon line or an encoder's output
    /// may carry DEL, C1 controls (CSI U+009B, OSC U+009D), bidirectional embeddings, overrides
    /// and isolates (U+202A to U+202E, U+2066 to U+2069), the marks U+061C, U+200E, U+200F and the
    /// separators U+2028, U+2029 raw, from a phone's pass message or a reader's name; a terminal
    /// obeys some of them. Escaped, the text is still JSON, and it parses to the same values:
    /// only the spelling of those characters inside strings changes, everything else is kept
    /// byte for byte (member order, numbers, escapes already there).
    ///
    /// - Throws: ``StrictJSONError`` when `bytes` are not one strict JSON text (nothing is
    ///   printed of it).
    public static func terminalSafe(_ bytes: Data) throws(StrictJSONError) -> String {
        try validate(bytes)
        // Validated: UTF-8, and outside strings only structure, literals, numbers and JSON's
        // whitespace, none of which is in the table.
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.unicodeScalars.contains(where: UntrustedText.mustEscape) else { return text }
        var out = String.UnicodeScalarView()
        var inString = false
        var afterBackslash = false
        for scalar in text.unicodeScalars {
            if inString && !afterBackslash && UntrustedText.mustEscape(scalar) {
                out.append(contentsOf: unicodeEscape(scalar).unicodeScalars)
                continue
            }
            out.append(scalar)
            if afterBackslash {
                afterBackslash = false
            } else if scalar == "\\" {
                afterBackslash = inString
            } else if scalar == "\"" {
                inString.toggle()
            }
        }
        return String(out)
    }

    /// `\u` and four lower-case hex digits, as JSON spells an escaped character (every character
    /// of the table is in the Basic Multilingual Plane).
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
