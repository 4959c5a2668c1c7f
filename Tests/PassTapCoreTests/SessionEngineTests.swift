import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct SessionEngineTests {
    static let visa = try! AID(hex: "A0000000031010")
    static let mastercard = try! AID(hex: "A0000000041010")
    static let ndef = try! AID(hex: "D2760000850101")
    static let fci: [UInt8] = [0x6F, 0x07, 0x84, 0x05, 0xA0, 0x00, 0x00, 0x00, 0x04]

    @Test func firstConfiguredAIDTheCardHasWinsAndLaterOnesAreNotTried() {
        let card = ScriptedCard()
        card.applications = [Self.mastercard.hex: Self.fci, Self.ndef.hex: [0x6F, 0x00]]
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.visa, Self.mastercard, Self.ndef]), on: card)
        #expect(outcome.error == nil)
        #expect(outcome.aid.selected == Self.mastercard)
        #expect(outcome.aid.attempts == [.init(aid: Self.visa, sw: "6A82"), .init(aid: Self.mastercard, sw: "9000")])
        #expect(card.received.count == 2)
        #expect(outcome.aid.fci?.hex == Self.fci.hexString)
        #expect(outcome.aid.fci?.tlv?.first?.tag == "6F")
        #expect(outcome.aid.fci?.tlv?.first?.children?.first == TLVRecord(tag: "84", value: "A000000004", children: nil))
    }

    @Test func orderIsTheConfiguredOrderNotTheCardsOrder() {
        let card = ScriptedCard()
        card.applications = [Self.visa.hex: Self.fci, Self.mastercard.hex: Self.fci]
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.mastercard, Self.visa]), on: card)
        #expect(outcome.aid.selected == Self.mastercard)
        #expect(outcome.aid.attempts.map(\.aid) == [Self.mastercard])
    }

    @Test func selectAnsweredWith61xxWinsAfterGetResponse() {
        let card = ScriptedCard()
        card.applications = [Self.visa.hex: Self.fci]
        card.chainedAIDs = [Self.visa.hex]
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.visa]), on: card)
        #expect(outcome.aid.selected == Self.visa)
        #expect(outcome.aid.attempts == [.init(aid: Self.visa, sw: "9000")])
        #expect(outcome.aid.fci?.hex == Self.fci.hexString)
        #expect(card.received.last == [0x00, 0xC0, 0x00, 0x00, UInt8(Self.fci.count)])
    }

    @Test func noMatchingAIDRecordsEveryAttemptAndNoError() {
        let card = ScriptedCard()
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.visa, Self.mastercard]), on: card)
        #expect(outcome.error == nil)
        #expect(outcome.aid.selected == nil)
        #expect(outcome.aid.fci == nil)
        #expect(outcome.aid.attempts.map(\.sw) == ["6A82", "6A82"])
    }

    @Test func cardPulledMidSessionEndsTheSessionWithItsErrorKeepingEarlierAttempts() {
        let card = ScriptedCard()
        card.failOnExchange = (2, CardTransportError(.cardRemoved, "the card left the field"))
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.visa, Self.mastercard, Self.ndef]), on: card)
        #expect(outcome.error?.code == .cardRemoved)
        #expect(outcome.error?.message == "the card left the field")
        #expect(outcome.aid.attempts == [.init(aid: Self.visa, sw: "6A82"), .init(aid: Self.mastercard, sw: nil)])
        #expect(card.received.count == 2)
    }

    @Test func anUnparsableFCIIsNotPublishedButTheSelectionIs() {
        let card = ScriptedCard()
        card.applications = [Self.visa.hex: [0x6F, 0x09, 0x84]]
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.visa]), on: card)
        #expect(outcome.aid.selected == Self.visa)
        #expect(outcome.aid.fci == nil)
    }
}
