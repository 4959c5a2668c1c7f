import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct HexTests {
    @Test(arguments: ["0abcd9", "0ABCD9", "0aBcD9"])
    func digitsParseInAnyCase(_ text: String) throws {
        #expect(try [UInt8](hex: text) == [0x0A, 0xBC, 0xD9])
    }

    @Test func spacesAndColonsBetweenDigitsAreIgnored() throws {
        #expect(try [UInt8](hex: " 0a:Bc d9 ") == [0x0A, 0xBC, 0xD9])
        #expect(try [UInt8](hex: "A 0") == [0xA0])
    }

    @Test func emptyTextIsNoBytes() throws {
        #expect(try [UInt8](hex: "") == [])
        #expect(try [UInt8](hex: " : ") == [])
        #expect([UInt8]().hexString == "")
    }

    @Test func outputIsUpperCaseTwoDigitsPerByteWithoutSeparators() {
        #expect([UInt8]([0x00, 0x0A, 0xBC, 0xFF]).hexString == "000ABCFF")
    }

    @Test func everyByteValueRoundTrips() throws {
        let all = (0...255).map { UInt8($0) }
        let text = all.hexString
        #expect(text.count == 512)
        #expect(try [UInt8](hex: text) == all)
        #expect(try [UInt8](hex: text.lowercased()) == all)
    }

    @Test(arguments: [("ABC", 3), ("A", 1), ("AB C", 3), ("A:B:C", 3)] as [(String, Int)])
    func oddDigitCountIsRefusedWithTheCount(_ text: String, _ digits: Int) {
        #expect(throws: HexError.oddLength(digits: digits)) { try [UInt8](hex: text) }
    }

    @Test(arguments: [("Ax", "x", 1), ("0x12", "x", 1), ("AB-CD", "-", 2), ("é0", "é", 0), ("AB\n", "\n", 2)]
        as [(String, Character, Int)])
    func aNonHexCharacterIsRefusedNamingItAndItsOffset(_ text: String, _ character: Character, _ offset: Int) {
        #expect(throws: HexError.invalidCharacter(character, offset: offset)) { try [UInt8](hex: text) }
    }

    @Test func errorsExplainWhatToDo() {
        #expect(HexError.oddLength(digits: 3).description.contains("two"))
        #expect(HexError.invalidCharacter("x", offset: 1).description.contains("0-9, A-F"))
    }
}
