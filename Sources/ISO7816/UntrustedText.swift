/// Text that a card, a phone or a reader chose, made safe to show on a terminal or in a log line.
///
/// A wallet label, a VAS message, an application label, a reader's name or a problem text that
/// quotes one can hold characters that a terminal obeys instead of showing: `ESC ] 0 ; ... BEL`
/// sets the window title, `ESC [ ...` moves the cursor or recolours what follows, CR and LF forge
/// lines, and a bidirectional override shows text in another order than it is (CVE-2021-42574).
/// ``escaped(_:)`` replaces each such character with a visible `\u{XX}`:
///
/// | characters             | what they are                                                     |
/// |------------------------|-------------------------------------------------------------------|
/// | U+0000 to U+001F       | C0 controls: NUL, BEL, BS, TAB, LF, CR, ESC...                    |
/// | U+007F                 | DEL                                                               |
/// | U+0080 to U+009F       | C1 controls: CSI (U+009B) and OSC (U+009D) act as `ESC [` and `ESC ]` on some terminals |
/// | U+061C, U+200E, U+200F | ARABIC LETTER MARK, LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK          |
/// | U+202A to U+202E       | LRE, RLE, PDF, LRO, RLO: bidirectional embeddings and overrides    |
/// | U+2066 to U+2069       | LRI, RLI, FSI, PDI: bidirectional isolates                        |
/// | U+2028, U+2029         | LINE SEPARATOR, PARAGRAPH SEPARATOR: line breaks to some viewers  |
///
/// Everything else is kept, the backslash included, so escaping twice changes nothing and a log
/// handler may escape what a caller already escaped. ``quoted(_:)`` also escapes `"` and `\`,
/// for a value shown between quotes.
public enum UntrustedText {
    /// `text` with every character of the table above written as `\u{XX}` (upper-case hex).
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: mustEscape) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if mustEscape(scalar) {
                out += escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` between double quotes, escaped as ``escaped(_:)`` does, with `"` written `\"` and
    /// `\` written `\\`, so the value cannot end its quotes early and reads back unambiguously.
    public static func quoted(_ text: some StringProtocol) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where mustEscape(scalar): out += escape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Whether `scalar` is one of the table above.
    public static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
