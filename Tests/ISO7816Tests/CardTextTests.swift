import ISO7816
import Testing

/// Card-chosen labels become short printable strings: kept when they already are, escaped where
/// they are not, cut and marked past the limit.
@Suite(.timeLimit(.minutes(1))) struct CardTextTests {
    @Test func aShortPrintableLabelIsKeptAsIs() {
        #expect(CardText.printable(Array("SamsungWallet".utf8), maxBytes: 32) == "SamsungWallet")
        #expect(CardText.isPlain(Array("SamsungWallet".utf8), maxBytes: 32))
    }

    @Test func controlBytesNonASCIIAndTheBackslashAreEscaped() {
        // ESC ] 0 ; sets a terminal's title; DEL, a UTF-8 "é" and a backslash.
        let label: [UInt8] = [0x1B, 0x5D, 0x30, 0x3B, 0x41, 0x07, 0x7F, 0xC3, 0xA9, 0x5C]
        #expect(CardText.printable(label, maxBytes: 32) == #"\x1B]0;A\x07\x7F\xC3\xA9\x5C"#)
        #expect(!CardText.isPlain(label, maxBytes: 32))
    }

    @Test func aLongLabelIsCutAtTheLimitAndMarkedWithItsLength() {
        let label = [UInt8](repeating: 0x01, count: 8000)
        let text = CardText.printable(label, maxBytes: 32)
        #expect(text == String(repeating: #"\x01"#, count: 32) + "...[8000 bytes]")
        #expect(text.utf8.count <= 4 * 32 + 24)
        #expect(CardText.printable(Array("ABCDEFGHIJ".utf8), maxBytes: 4) == "ABCD...[10 bytes]")
    }

    @Test func aLabelOfExactlyTheLimitIsNotMarked() {
        #expect(CardText.printable(Array("ABCD".utf8), maxBytes: 4) == "ABCD")
        #expect(CardText.hex([1, 2, 3, 4], maxBytes: 4) == "01020304")
    }

    @Test func hexIsCutAndMarkedPastTheLimit() {
        #expect(CardText.hex([UInt8](repeating: 0xAB, count: 100), maxBytes: 2) == "ABAB...[100 bytes]")
    }
}
