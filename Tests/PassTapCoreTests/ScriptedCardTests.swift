import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing
import VAS

/// The card double answers in the order its documentation gives, the order the session fuzz
/// targets' saved findings were found with.
@Suite struct ScriptedCardTests {
    static let visa = "A0000000031010"

    static func select(_ aid: String) throws -> [UInt8] { try CommandAPDU.select(aid: AID(hex: aid)).bytes }

    @Test func selectAnswersWinOverApplicationsAndAnUnknownNameIsNotFound() throws {
        let card = ScriptedCard()
        card.applications[Self.visa] = [0x6F, 0x00]
        #expect(try card.transmit(Self.select(Self.visa)) == [0x6F, 0x00, 0x90, 0x00])
        card.selectAnswers[Self.visa] = [0x6A, 0x81]
        #expect(try card.transmit(Self.select(Self.visa)) == [0x6A, 0x81])
        #expect(try card.transmit(Self.select("A0000000041010")) == [0x6A, 0x82])
        #expect(try card.transmit([0x80, 0x10, 0x00, 0x00]) == [0x6D, 0x00])
    }

    @Test func aChainedApplicationAnswers61xxThenGetResponseGivesItsFCI() throws {
        let card = ScriptedCard()
        card.applications[Self.visa] = [0x6F, 0x03, 0x84, 0x01, 0x41]
        card.chainedAIDs = [Self.visa]
        #expect(try card.transmit(Self.select(Self.visa)) == [0x61, 0x05])
        #expect(try card.transmit([0x00, 0xC0, 0x00, 0x00, 0x05]) == [0x6F, 0x03, 0x84, 0x01, 0x41, 0x90, 0x00])
        #expect(card.received.count == 2 && card.answers.count == 2)
    }

    @Test func followUpsAnswerACommandResentWithANewLeThenWhatNothingElseAnswers() throws {
        let card = ScriptedCard()
        card.selectAnswers[Self.visa] = [0x6C, 0x10]
        card.onCommand = { $0.starts(with: [0x80, 0xCA]) ? [0x6A, 0x83] : nil }
        card.followUps = [[0x01, 0x90, 0x00], [0x02, 0x90, 0x00], [0x03, 0x90, 0x00]]
        let select = try Self.select(Self.visa)
        #expect(try card.transmit(select) == [0x6C, 0x10])
        #expect(try card.transmit(select.dropLast() + [0x10]) == [0x01, 0x90, 0x00])  // re-sent with the new Le
        #expect(try card.transmit([0x80, 0xCA, 0x01, 0x00, 0x00]) == [0x6A, 0x83])  // onCommand first
        #expect(try card.transmit([0x00, 0xC0, 0x00, 0x00, 0x00]) == [0x02, 0x90, 0x00])  // nothing else answers
        #expect(try card.transmit(Self.select("A0000000041010")) == [0x03, 0x90, 0x00])  // an unknown name
        #expect(try card.transmit(Self.select("A0000000041010")) == [0x6A, 0x82])  // none left
    }

    @Test func theChosenExchangeFailsAndEveryExchangeRunsTheHook() throws {
        let card = ScriptedCard()
        var exchanges = 0
        card.onExchange = { exchanges += 1 }
        card.failOnExchange = (2, CardTransportError(.cardRemoved, "the card left the field"))
        _ = try card.transmit([0x00, 0xB0, 0x00, 0x00, 0x00])
        #expect(throws: CardTransportError(.cardRemoved, "")) { try card.transmit([0x00, 0xB0, 0x00, 0x00, 0x00]) }
        #expect(exchanges == 2 && card.received.count == 2 && card.answers.count == 1)
    }

    @Test func anInstalledPhoneAnswersGetVASDataAndLeavesOtherCommandsAlone() throws {
        let card = ScriptedCard()
        VASPhone().install(on: card)
        #expect(try card.transmit(VASApplication.selectCommand.bytes).suffix(2) == [0x90, 0x00])
        // GET VAS DATA for a pass the phone does not hold.
        let data: [UInt8] = [0x9F, 0x22, 0x02, 0x01, 0x00, 0x9F, 0x25, 0x20] + [UInt8](repeating: 0xAB, count: 32)
        #expect(try card.transmit([0x80, 0xCA, 0x01, 0x01, UInt8(data.count)] + data + [0x00]) == [0x6A, 0x83])
        #expect(try card.transmit([0x00, 0xB0, 0x00, 0x00, 0x00]) == [0x6D, 0x00])
    }
}
