import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct UntrustedTextTests {
    @Test(arguments: [
        ("ApplePay", "ApplePay"),
        ("", ""),
        ("member 0042 — café ☕ 会员 😀", "member 0042 — café ☕ 会员 😀"),
        (#"back\slash "quotes" stay"#, #"back\slash "quotes" stay"#),
        ("\u{1B}]0;pwned\u{07}ApplePay", "\\u{1B}]0;pwned\\u{7}ApplePay"),  // sets the terminal title
        ("\u{1B}[2J\u{1B}[31mred", "\\u{1B}[2J\\u{1B}[31mred"),
        ("line\nforged\rline\ttab\u{0}", "line\\u{A}forged\\u{D}line\\u{9}tab\\u{0}"),
        ("del\u{7F}", "del\\u{7F}"),
        ("c1 \u{80} \u{85} \u{9B}31m \u{9D}0;t\u{9C} \u{9F}", "c1 \\u{80} \\u{85} \\u{9B}31m \\u{9D}0;t\\u{9C} \\u{9F}"),
        ("\u{A0}nbsp stays", "\u{A0}nbsp stays"),
        ("pay \u{202E}gnp.exe", "pay \\u{202E}gnp.exe"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", "\\u{202A}\\u{202B}\\u{202C}\\u{202D}"),
        ("\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
        ("\u{200E}\u{200F}\u{061C}", "\\u{200E}\\u{200F}\\u{61C}"),
        ("a\u{2028}b\u{2029}c", "a\\u{2028}b\\u{2029}c"),
        ("\u{200D}zwj and \u{2065} stay", "\u{200D}zwj and \u{2065} stay"),
    ])
    func controlAndBidiCharactersAreEscapedAndEverythingElseKept(text: String, expected: String) {
        #expect(UntrustedText.escaped(text) == expected)
    }

    @Test func everyCharacterTheTableNamesIsEscaped() {
        let ranges: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x7F...0x9F, 0x061C...0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028...0x2029,
        ]
        for value in ranges.joined() {
            let scalar = Unicode.Scalar(value)!
            let escaped = UntrustedText.escaped(String(Character(scalar)))
            #expect(escaped == "\\u{\(String(value, radix: 16, uppercase: true))}")
            #expect(!escaped.unicodeScalars.contains(where: UntrustedText.mustEscape))
        }
    }

    @Test func theResultNeverHoldsACharacterToEscape() {
        // Every scalar of the first three planes' interesting part, in one string.
        let scalars = (0...0x2FFF).compactMap(Unicode.Scalar.init)
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        let escaped = UntrustedText.escaped(text)
        #expect(!escaped.unicodeScalars.contains(where: UntrustedText.mustEscape))
        #expect(!UntrustedText.quoted(text).unicodeScalars.contains(where: UntrustedText.mustEscape))
    }

    @Test(arguments: ["plain", "\u{1B}]0;t\u{7}", "a\\u{1B}b", "\u{202E}x\u{9B}"])
    func escapingTwiceChangesNothing(text: String) {
        let once = UntrustedText.escaped(text)
        #expect(UntrustedText.escaped(once) == once)
    }

    @Test(arguments: [
        ("member 0042", #""member 0042""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\path"#, #""C:\\path""#),
        ("\u{1B}[31m\"\n", #""\u{1B}[31m\"\u{A}""#),
        ("\u{202E}", #""\u{202E}""#),
    ])
    func quotedValuesCannotEndTheirQuotesEarly(text: String, expected: String) {
        #expect(UntrustedText.quoted(text) == expected)
    }
}
