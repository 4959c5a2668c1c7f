import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing

/// A Type 4 tag's NDEF message through the session engine: the NDEF application, the CC file,
/// MLe-sized READ BINARY chunks, the NDEF file's id and size from the CC, every bound a problem,
/// and no APDU at all when the AID list or a wallet already succeeded.
@Suite(.timeLimit(.minutes(1))) struct Type4TagReaderTests {
    static let visa = try! AID(hex: "A0000000031010")
    static let mastercard = try! AID(hex: "A0000000041010")

    /// Three URI records, 50 bytes of message (MB on the first, ME on the last, all short).
    static let message: [UInt8] =
        [0x91, 0x01, 0x0F, 0x55, 0x04] + Array("example.com/12".utf8)
        + [0x11, 0x01, 0x0C, 0x55, 0x04] + Array("example.org".utf8)
        + [0x51, 0x01, 0x0B, 0x55, 0x04] + Array("example.ch".utf8)

    static func run(_ card: ScriptedCard, aids: [AID] = [visa], ndef: Bool = true) -> SessionOutcome {
        SessionEngine().run(SessionPlan(aids: aids, ndef: ndef), on: card)
    }

    @Test func theMessageIsReadInChunksOfMLeAfterTheAIDListFoundNothing() throws {
        let tag = Type4Tag(message: Self.message, mle: 20)
        let card = tag.card()
        let outcome = Self.run(card)
        #expect(outcome.error == nil)
        let ndef = try #require(outcome.ndef)
        #expect(ndef.problem == nil)
        #expect(ndef.tagType == .type4)
        #expect(ndef.recordCount == 3)
        #expect(ndef.records?.map(\.uri) == ["https://example.com/12", "https://example.org", "https://example.ch"])
        #expect(ndef.messageHex == Self.message.hexString)
        #expect(Self.message.count == 50)
        // SELECT visa (6A82), the detection, then 50 bytes from offset 2 in chunks of MLe (20).
        let reads: [[UInt8]] = [[0x00, 0xB0, 0x00, 0x02, 20], [0x00, 0xB0, 0x00, 0x16, 20], [0x00, 0xB0, 0x00, 0x2A, 10]]
        #expect(card.received == [CommandAPDU.select(aid: Self.visa).bytes] + Type4Tag.detection + reads)
    }

    @Test func aLargeMLeIsReadIn255ByteChunks() throws {
        let fixed: [UInt8] = [0xC2, 0x0A, 0x00, 0x00, 0x01, 0x00] + Array("text/plain".utf8) + [UInt8](repeating: 0x41, count: 256)
        let tag = Type4Tag(message: fixed, mle: 0xFFFF)
        let card = tag.card()
        let ndef = try #require(Self.run(card).ndef)
        #expect(ndef.problem == nil)
        #expect(ndef.records?.first?.content == "media")
        #expect(ndef.records?.first?.payloadLength == 256)
        #expect(card.received.suffix(2) == [[0x00, 0xB0, 0x00, 0x02, 0xFF], [0x00, 0xB0, 0x01, 0x01, UInt8(fixed.count - 255)]])
    }

    @Test func aTapThatSelectedAnApplicationGetsNoNDEFAPDU() {
        let tag = Type4Tag(message: Self.message)
        let card = tag.card()
        card.applications[Self.mastercard.hex] = [0x6F, 0x00]
        let outcome = Self.run(card, aids: [Self.visa, Self.mastercard])
        #expect(outcome.aid.selected == Self.mastercard)
        #expect(outcome.ndef == nil)
        #expect(card.received.count == 2)
    }

    @Test func ndefOffSendsNothingMore() {
        let card = Type4Tag(message: Self.message).card()
        let outcome = Self.run(card, ndef: false)
        #expect(outcome.ndef == nil)
        #expect(card.received.count == 1)
    }

    @Test func aCardWithoutTheNDEFApplicationGetsAProblemAfterOneSELECT() throws {
        let card = ScriptedCard()
        let outcome = Self.run(card)
        let ndef = try #require(outcome.ndef)
        #expect(ndef.problem == "no NDEF application: SELECT D2760000850101 answered 6A82")
        #expect(ndef.tagType == .type4 && ndef.recordCount == 0 && ndef.records == nil)
        #expect(card.received.count == 2)
    }

    @Test func anNLENPastTheFileSizeFromTheCCIsAProblemBeforeAnyRead() throws {
        let card = Type4Tag(message: Self.message, maximumFileBytes: 0x0020, nlen: 0x7000).card()
        let ndef = try #require(Self.run(card).ndef)
        #expect(ndef.problem == "NLEN says 28672 bytes, past the NDEF file's 32 (from the capability container)")
        #expect(card.received.count == 1 + Type4Tag.detection.count)
    }

    @Test func anNLENOverWhatIsReadIsAProblemBeforeAnyRead() throws {
        let card = Type4Tag(message: Self.message, maximumFileBytes: 0xFFFE, nlen: 0xFFF0).card()
        let ndef = try #require(Self.run(card).ndef)
        #expect(ndef.problem?.hasPrefix("NLEN says 65520 bytes, over the") == true)
        #expect(card.received.count == 1 + Type4Tag.detection.count)
    }

    @Test func anEmptyNDEFFileIsAProblem() {
        let card = Type4Tag(message: [], nlen: 0).card()
        #expect(Self.run(card).ndef?.problem == "the NDEF file is empty (NLEN 0): the tag holds no message")
    }

    @Test func aCapabilityContainerThatBreaksTheRulesIsAProblem() {
        func problem(_ tag: Type4Tag) -> String? { Self.run(tag.card()).ndef?.problem }
        #expect(problem(Type4Tag(message: Self.message, mle: 0x000E)) == "the capability container's MLe is 14, under the 15 the specification allows")
        #expect(problem(Type4Tag(message: Self.message, mlc: 1)) == "the capability container's MLc is 1: a SELECT by file id needs 2")
        let shortCC = Type4Tag(message: Self.message)
        shortCC.files[0xE103] = Array(shortCC.files[0xE103]!.prefix(9))
        #expect(problem(shortCC) == "the capability container file E103 gave 9 bytes; at least 15 are needed")
        let reserved = Type4Tag(message: Self.message)
        reserved.files[0xE103]![9] = 0x3F
        reserved.files[0xE103]![10] = 0x00
        #expect(problem(reserved)?.contains("an id the specification reserves") == true)
    }

    @Test func aChunkShorterThanAskedIsAProblemNotALoop() throws {
        let tag = Type4Tag(message: Self.message, mle: 20)
        let card = tag.card()
        let strict = card.onCommand
        card.onCommand = { command in
            guard command.count == 5, command[1] == 0xB0, command[3] == 0x16 else { return strict?(command) }
            return [0x90, 0x00]
        }
        let ndef = try #require(Self.run(card).ndef)
        #expect(ndef.problem == "READ BINARY of 20 bytes at offset 22 of the NDEF file returned 0")
    }

    @Test func aTagPulledDuringTheReadEndsTheSessionWithItsErrorAndTheProblemSaysSo() throws {
        let card = Type4Tag(message: Self.message, mle: 20).card()
        card.failOnExchange = (8, CardTransportError(.cardRemoved, "the card left the field"))
        let outcome = Self.run(card)
        #expect(outcome.error?.code == .cardRemoved)
        #expect(outcome.ndef?.problem == "the tap ended before the NDEF message was read (card_removed: see the read.result error)")
    }

    @Test func aReaderWithSmallAnswersGetsChunksItCarries() throws {
        let message: [UInt8] = [0xC2, 0x0A, 0x00, 0x00, 0x01, 0x00] + Array("text/plain".utf8) + [UInt8](repeating: 0x41, count: 256)
        let card = Type4Tag(message: message, mle: 0xFFFF).card()
        card.capacity = ChannelCapacity(maxCommandBytes: 262, maxAnswerBytes: 66)
        let ndef = try #require(Self.run(card).ndef)
        #expect(ndef.problem == nil)
        #expect(card.received.dropFirst(1 + Type4Tag.detection.count).allSatisfy { $0.last == 64 || $0 == card.received.last })
    }
}
