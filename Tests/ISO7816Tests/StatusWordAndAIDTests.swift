import ISO7816
import Testing

@Suite struct StatusWordTests {
    @Test(arguments: [
        (0x9000, "success"),
        (0x6A82, "file or application not found"),
        (0x6A83, "record not found (VAS: no such pass)"),
        (0x6287, "warning: selected record or file deactivated (VAS: pass not released yet)"),
        (0x6D00, "instruction code not supported or invalid"),
        (0x6110, "16 bytes still available (GET RESPONSE)"),
        (0x6100, "256 or more bytes still available (GET RESPONSE)"),
        (0x6C08, "wrong Le: 8 bytes available (resend with that Le)"),
        (0x63C2, "verification failed: 2 tries left"),
        (0x6A99, "wrong parameters P1-P2"),
        (0x9123, "proprietary status (application-specific)"),
        (0x1234, "unknown status word"),
    ] as [(UInt16, String)])
    func meaningFollowsISO7816Part4(_ raw: UInt16, _ meaning: String) {
        #expect(StatusWord(rawValue: raw).meaning == meaning)
    }

    @Test func partsAndHex() {
        let sw = StatusWord(sw1: 0x6A, sw2: 0x82)
        #expect(sw.rawValue == 0x6A82 && sw.sw1 == 0x6A && sw.sw2 == 0x82)
        #expect(sw.hex == "6A82")
        #expect(!sw.isSuccess && StatusWord.success.isSuccess)
    }
}

@Suite struct AIDTests {
    @Test func fiveToSixteenBytesAreAccepted() throws {
        #expect(try AID(hex: "a000000003").hex == "A000000003")
        #expect(try AID(hex: String(repeating: "AB", count: 16)).bytes.count == 16)
    }

    @Test func otherLengthsAndNonHexAreRefused() {
        #expect(throws: APDUError.invalidAIDLength(4)) { try AID(hex: "A0000000") }
        #expect(throws: APDUError.invalidAIDLength(17)) { try AID(hex: String(repeating: "AB", count: 17)) }
        #expect(throws: APDUError.self) { try AID(hex: "A00000000G") }
    }
}

@Suite struct HexTests {
    @Test func anyCaseAndSeparatorsInUpperCaseOut() throws {
        #expect(try [UInt8](hex: "0a:Bc d9") == [0x0A, 0xBC, 0xD9])
        #expect([UInt8]([0x0A, 0xBC]).hexString == "0ABC")
    }

    @Test func oddLengthAndBadCharactersAreRefused() {
        #expect(throws: HexError.oddLength(digits: 3)) { try [UInt8](hex: "ABC") }
        #expect(throws: HexError.invalidCharacter("x", offset: 1)) { try [UInt8](hex: "Ax") }
    }
}
