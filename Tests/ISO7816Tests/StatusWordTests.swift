import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct StatusWordTests {
    @Test(arguments: [
        // Exact entries of ISO/IEC 7816-4 tables 5 and 6.
        (0x9000, "success"),
        (0x6700, "wrong length"),
        (0x6982, "security status not satisfied"),
        (0x6A82, "file or application not found"),
        (0x6A83, "record not found (VAS: no such pass)"),
        (0x6287, "warning: selected record or file deactivated (VAS: pass not released yet)"),
        (0x6D00, "instruction code not supported or invalid"),
        (0x6E00, "class not supported"),
        (0x6340, "unsupported application version (VAS)"),
        // 61xx: bytes still available, 00 meaning 256 or more.
        (0x6110, "16 bytes still available (GET RESPONSE)"),
        (0x6100, "256 or more bytes still available (GET RESPONSE)"),
        // 6Cxx: wrong Le, 00 meaning 256.
        (0x6C08, "wrong Le: 8 bytes available (resend with that Le)"),
        (0x6C00, "wrong Le: 256 bytes available (resend with that Le)"),
        // 63Cx: counter.
        (0x63C0, "verification failed: 0 tries left"),
        (0x63C2, "verification failed: 2 tries left"),
        (0x63CF, "verification failed: 15 tries left"),
        // Fallbacks by SW1.
        (0x6299, "warning: state of non-volatile memory unchanged"),
        (0x6310, "warning: state of non-volatile memory changed"),
        (0x6455, "execution error: state of non-volatile memory unchanged"),
        (0x6599, "execution error: state of non-volatile memory changed"),
        (0x6612, "security-related issue"),
        (0x6899, "functions in CLA not supported"),
        (0x6999, "command not allowed"),
        (0x6A99, "wrong parameters P1-P2"),
        (0x6701, "wrong length"),
        (0x6B05, "wrong parameters P1-P2"),
        (0x6D01, "instruction code not supported or invalid"),
        (0x6E42, "class not supported"),
        (0x6F12, "no precise diagnosis"),
        (0x9123, "proprietary status (application-specific)"),
        (0x9F10, "proprietary status (application-specific)"),
        (0x1234, "unknown status word"),
        (0x6000, "unknown status word"),
        (0x0000, "unknown status word"),
    ] as [(UInt16, String)])
    func meaningFollowsISO7816Part4(_ raw: UInt16, _ meaning: String) {
        #expect(StatusWord(rawValue: raw).meaning == meaning)
    }

    @Test(arguments: [(0x6A, 0x82), (0x90, 0x00), (0x01, 0x02), (0xFF, 0xFF)] as [(UInt8, UInt8)])
    func bytesAndRawValueAgree(_ sw1: UInt8, _ sw2: UInt8) {
        let sw = StatusWord(sw1: sw1, sw2: sw2)
        #expect(sw.sw1 == sw1 && sw.sw2 == sw2)
        #expect(sw == StatusWord(rawValue: UInt16(sw1) << 8 | UInt16(sw2)))
        #expect(sw.hex == [sw1, sw2].hexString)
        #expect(sw.description == sw.hex)
    }

    @Test func hexKeepsLeadingZeros() {
        #expect(StatusWord(rawValue: 0x0102).hex == "0102")
    }

    @Test(arguments: [0x9001, 0x6100, 0x6A82, 0x0090] as [UInt16])
    func onlyNineThousandIsSuccess(_ raw: UInt16) {
        #expect(!StatusWord(rawValue: raw).isSuccess)
        #expect(StatusWord.success.isSuccess)
    }

    @Test(arguments: [
        (StatusWord.success, 0x9000),
        (.dataNotActivated, 0x6287),
        (.wrongLength, 0x6700),
        (.securityStatusNotSatisfied, 0x6982),
        (.referenceDataNotUsable, 0x6984),
        (.incorrectData, 0x6A80),
        (.fileNotFound, 0x6A82),
        (.referencedDataNotFound, 0x6A83),
        (.wrongParameters, 0x6B00),
        (.instructionNotSupported, 0x6D00),
        (.classNotSupported, 0x6E00),
    ] as [(StatusWord, UInt16)])
    func namedStatusWordsHaveTheirISOValueAndAKnownMeaning(_ sw: StatusWord, _ raw: UInt16) {
        #expect(sw.rawValue == raw)
        #expect(sw.meaning != "unknown status word")
    }
}
