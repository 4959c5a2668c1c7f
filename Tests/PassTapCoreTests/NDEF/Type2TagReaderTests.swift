import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing

/// A Type 2 tag's NDEF message over its page memory: the capability container, the TLV walk
/// (NULL, Lock and Memory Control, NDEF with 1- or 3-byte lengths, proprietary, terminator),
/// reads of 4 or 16 bytes, only the pages needed, and every hostile layout bounded to a problem.
@Suite(.timeLimit(.minutes(1))) struct Type2TagReaderTests {
    @Test func aURIRecordIsReadWithSixteenByteReadsOfOnlyThePagesItNeeds() {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage)))
        let result = Type2Tag.read(memory)
        #expect(result.problem == nil)
        #expect(result.tagType == .type2)
        #expect(result.recordCount == 1)
        #expect(result.records?.first?.uri == "https://example.com")
        #expect(result.records?.first?.content == "uri")
        #expect(result.records?.first?.tnf == "well_known")
        #expect(result.records?.first?.type == "U")
        #expect(result.messageHex == Type2Tag.uriMessage.hexString)
        #expect(!result.truncated)
        // Page 3 brings pages 3–6 (bytes 12–27); the TLV ends at byte 33, in page 8 (read from 7).
        #expect(memory.reads == [3, 7])
    }

    @Test func readersThatReturnFourBytesGetOneReadPerPage() {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage)), pagesPerRead: 1)
        let result = Type2Tag.read(memory)
        #expect(result.problem == nil)
        #expect(result.records?.first?.uri == "https://example.com")
        #expect(memory.reads == [3, 4, 5, 6, 7, 8])
    }

    @Test func lockAndMemoryControlBeforeTheNDEFTLVAreHonouredAndTheirReservedBytesSkipped() {
        // Lock Control 01 03 A0 10 44 (16 lock bits at page 10 × 16 = byte 160, outside the
        // message); Memory Control 02 03 70 04 02 reserves bytes 28–31 (page 7), inside it.
        var data: [UInt8] = [0x01, 0x03, 0xA0, 0x10, 0x44, 0x02, 0x03, 0x70, 0x04, 0x02]
        data += [0x03, UInt8(Type2Tag.uriMessage.count)]
        // The data area: bytes 16–25 are the controls, 26–27 the NDEF T and L, the message from 28
        // on skips 28–31 (garbage there).
        var image = Type2Tag.ntag215(data: data)
        image.replaceSubrange(28..<32, with: [0xEE, 0xEE, 0xEE, 0xEE])
        image.replaceSubrange(32..<(32 + Type2Tag.uriMessage.count), with: Type2Tag.uriMessage)
        image[32 + Type2Tag.uriMessage.count] = 0xFE
        for pagesPerRead in [1, 4] {
            let result = Type2Tag.read(ScriptedTagMemory(image: image, pagesPerRead: pagesPerRead))
            #expect(result.problem == nil)
            #expect(result.messageHex == Type2Tag.uriMessage.hexString)
            #expect(result.records?.first?.uri == "https://example.com")
        }
    }

    @Test func nullTLVsAndProprietaryTLVsBeforeTheMessageAreSkipped() {
        let data: [UInt8] = [0x00, 0x00, 0xFD, 0x03, 0xAA, 0xBB, 0xCC, 0x00] + Type2Tag.ndefTLV(Type2Tag.uriMessage)
        let result = Type2Tag.read(ScriptedTagMemory(image: Type2Tag.ntag215(data: data)))
        #expect(result.problem == nil)
        #expect(result.messageHex == Type2Tag.uriMessage.hexString)
    }

    @Test func aThreeByteLengthReadsAMessageOver254Bytes() {
        // One long Text record (SR clear): 297 bytes of payload, 304 bytes of message.
        let payload: [UInt8] = [0x02] + Array("en".utf8) + [UInt8](repeating: 0x61, count: 294)
        let message: [UInt8] = [0xC1, 0x01, 0x00, 0x00, 0x01, 0x29, 0x54] + payload
        #expect(message.count == 304)
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(message)))
        let result = Type2Tag.read(memory)
        #expect(result.problem == nil)
        #expect(result.records?.first?.content == "text")
        #expect(result.records?.first?.text == String(repeating: "a", count: 294))
        #expect(result.records?.first?.language == "en")
        // Bytes 16–323: pages 4–80, read from 3 by fours; nothing past page 82.
        #expect(memory.reads.last == 79)
    }

    @Test func anNDEFLengthPastTheDataAreaIsAProblemFoundBeforeReadingPastIt() {
        // CC says 48 data bytes; the NDEF TLV claims 256.
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: [0x03, 0xFF, 0x01, 0x00], sizeByte: 0x06))
        let result = Type2Tag.read(memory)
        #expect(result.problem?.contains("past the end of the data area (48 bytes") == true)
        #expect(result.records == nil && result.messageHex == nil && result.recordCount == 0)
        #expect(memory.reads == [3])
    }

    @Test func endlessNULLsStopAtTheDataAreaTheCCGives() {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: []))
        let result = Type2Tag.read(memory)
        #expect(result.problem == "no NDEF TLV in the data area's 496 bytes (from the capability container)")
        // The data area ends at byte 512 (page 128): nothing past it is read.
        #expect(memory.reads.allSatisfy { $0 <= 127 })
        #expect(memory.reads.count == 32)
    }

    @Test func aLoopOfTLVsIsCutAfterSixteenBlocks() {
        let data = Array([[UInt8]](repeating: [0xFD, 0x00], count: 40).joined())
        let result = Type2Tag.read(ScriptedTagMemory(image: Type2Tag.ntag215(data: data)))
        #expect(result.problem == "no NDEF TLV among the first 16 TLV blocks")
    }

    @Test func aTerminatorBeforeAnyNDEFTLVMeansNoMessage() {
        let result = Type2Tag.read(ScriptedTagMemory(image: Type2Tag.ntag215(data: [0x01, 0x03, 0xA0, 0x10, 0x44, 0xFE])))
        #expect(result.problem == "no NDEF TLV: the terminator TLV came first")
    }

    @Test func anEmptyNDEFTLVIsAnEmptyTag() {
        let result = Type2Tag.read(ScriptedTagMemory(image: Type2Tag.ntag215(data: [0x03, 0x00, 0xFE])))
        #expect(result.problem == "the NDEF TLV is empty: the tag holds no message")
        #expect(result.recordCount == 0)
    }

    @Test func aTagWithoutTheMagicNumberIsNotNDEFFormatted() {
        var image = Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage))
        image[12] = 0x00
        let result = Type2Tag.read(ScriptedTagMemory(image: image))
        #expect(result.problem?.hasPrefix("the tag is not NDEF formatted") == true)
    }

    @Test func aHigherMajorVersionOrNoReadAccessIsNotRead() {
        var image = Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage))
        image[13] = 0x20
        #expect(Type2Tag.read(ScriptedTagMemory(image: image)).problem?.contains("mapping version is 2.0") == true)
        image[13] = 0x10
        image[15] = 0x80
        #expect(Type2Tag.read(ScriptedTagMemory(image: image)).problem?.contains("read access") == true)
    }

    @Test func garbageThatIsNotNDEFIsAProblemAndItsHexIsKept() {
        let garbage: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let result = Type2Tag.read(ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(garbage))))
        #expect(result.problem?.hasPrefix("the tag's NDEF message (5 bytes) does not parse") == true)
        #expect(result.records == nil)
        #expect(result.messageHex == "FFFFFFFFFF")
    }

    /// A MIFARE Ultralight's 16 pages (64 bytes) whose capability container claims an NTAG215's
    /// 496 bytes, with an NDEF TLV of 60 bytes: its last 14 would be READ's rollover to page 0.
    static func overClaimingUltralight() -> [UInt8] {
        let message = [UInt8](repeating: 0x61, count: 46)
        var image = Type2Tag.ntag215(data: [0x03, 0x3C] + message, pages: 16)
        image[3] = 0x88 ^ image[0] ^ image[1] ^ image[2]  // BCC0, as a real tag's page 0 has it
        return image
    }

    @Test func aCCClaimingMoreThanTheTagHoldsStopsAtTheRolloverToPageZero() {
        let memory = ScriptedTagMemory(image: Self.overClaimingUltralight())
        let result = Type2Tag.read(memory)
        #expect(result.problem?.hasPrefix("page 16 reads back as page 0 (the UID): the tag's memory ends before it") == true, "\(result)")
        #expect(result.problem?.contains("past the tag's memory") == true)
        #expect(result.records == nil && result.messageHex == nil)
        // Page 15's READ brought 15, 0, 1, 2; page 0 was read once to compare.
        #expect(memory.reads == [3, 7, 11, 15, 0])
    }

    @Test func aTagWhoseReadsPastTheEndWrapWholeIsStoppedToo() {
        // One page a read, and a clone that answers page 16 + n with page n instead of a NAK.
        let small = Self.overClaimingUltralight()
        let memory = ScriptedTagMemory(image: small + [UInt8](repeating: 0, count: 64), pagesPerRead: 1)
        memory.onRead = { page, answer in page >= 16 ? Array(small[(Int(page) % 16 * 4)..<(Int(page) % 16 * 4 + 4)]) : answer }
        let result = Type2Tag.read(memory)
        #expect(result.problem?.hasPrefix("page 16 reads back as page 0") == true, "\(result)")
    }

    @Test func aDataPageThatOnlyLooksLikePageZeroIsRead() {
        // Page 8 is the message's last two bytes ("om"), then 33 B9: it passes the BCC0 rule
        // (88 ⊕ 6F ⊕ 6D ⊕ 33 = B9) but is not page 0, so page 0 is read once and the message kept.
        var image = Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage))
        image[3] = 0x88 ^ image[0] ^ image[1] ^ image[2]
        image[34...35] = [0x33, 0xB9]
        let memory = ScriptedTagMemory(image: image)
        let result = Type2Tag.read(memory)
        #expect(result.problem == nil, "\(result)")
        #expect(result.records?.first?.uri == "https://example.com")
        #expect(memory.reads == [3, 7, 0])
    }

    @Test func aReadOfAnotherSizeIsAProblem() {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage)))
        memory.onRead = { page, answer in page == 7 ? Array(answer.prefix(7)) : answer }
        #expect(Type2Tag.read(memory).problem == "reading page 7 returned 7 bytes; a Type 2 read returns 4 or 16")
    }

    @Test func aTagPulledDuringTheReadIsAProblemNotACrash() {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage)))
        memory.failOnRead = (2, CardTransportError(.cardRemoved, "the card left the field"))
        let result = Type2Tag.read(memory)
        #expect(result.problem == "the tag could not be read: card_removed: the card left the field")
    }

    @Test func theTapsBudgetBoundsTheReads() {
        let clock = TestClock()
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: []), pagesPerRead: 1)
        memory.onRead = { _, answer in
            clock.advance(by: .milliseconds(100))
            return answer
        }
        let result = SessionEngine(clock: DaemonClock(now: { clock.now })).readType2(memory, budget: .milliseconds(250))
        #expect(result.problem?.hasPrefix("the tag could not be read: session_timeout") == true)
        #expect(memory.reads.count == 3)
    }
}
