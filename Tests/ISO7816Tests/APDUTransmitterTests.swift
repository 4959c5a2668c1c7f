import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct APDUTransmitterTests {
    /// The exchange failure the answer script raises.
    struct CardGone: Error, Equatable {
        let step: Int
    }

    /// The card's answers, in order, for `APDUTransmitter`'s exchange function: records every
    /// command it was sent, and fails with ``CardGone`` when the script runs out. (Not a card
    /// double: that is PassTapTestSupport's `ScriptedCard`, which ISO7816Tests does not use, so
    /// as to build on ISO7816 alone.)
    final class AnswerScript {
        private var answers: [[UInt8]]
        private(set) var sent: [[UInt8]] = []

        init(_ answers: [[UInt8]]) { self.answers = answers }

        convenience init(hex answers: [String]) throws {
            self.init(try answers.map { try [UInt8](hex: $0) })
        }

        func exchange(_ bytes: [UInt8]) throws(CardGone) -> [UInt8] {
            sent.append(bytes)
            guard !answers.isEmpty else { throw CardGone(step: sent.count) }
            return answers.removeFirst()
        }

        var sentHex: [String] { sent.map(\.hexString) }
    }

    static func select() throws -> CommandAPDU {
        CommandAPDU.select(aid: try AID(hex: "A0000000041010"))
    }

    @Test func aDirectAnswerTakesOneExchangeOfTheCommandBytes() throws {
        let card = try AnswerScript(hex: ["6F009000"])
        let response = try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        #expect(response == ResponseAPDU(data: [0x6F, 0x00], statusWord: .success))
        #expect(card.sentHex == ["00A4040007A000000004101000"])
    }

    @Test func errorStatusWordsAreReturnedNotThrown() throws {
        let card = try AnswerScript(hex: ["6A82"])
        let response = try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        #expect(response.statusWord == .fileNotFound)
        #expect(response.data.isEmpty)
        #expect(card.sent.count == 1)
    }

    @Test func chained61xxAnswersAreConcatenatedThroughGetResponse() throws {
        let card = try AnswerScript(hex: ["AA6103", "BBCCDD6101", "EE9000"])
        let response = try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        #expect(response.data == [0xAA, 0xBB, 0xCC, 0xDD, 0xEE])
        #expect(response.statusWord == .success)
        #expect(card.sentHex == ["00A4040007A000000004101000", "00C0000003", "00C0000001"])
    }

    @Test func sixtyOneZeroZeroAsksFor256Bytes() throws {
        let card = try AnswerScript(hex: ["6100", "01029000"])
        let response = try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        #expect(card.sentHex.last == "00C0000000")
        #expect(response.data == [0x01, 0x02])
    }

    @Test func theLastStatusWordOfAChainIsReturned() throws {
        let card = try AnswerScript(hex: ["AA6101", "BB6A82"])
        let response = try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        #expect(response == ResponseAPDU(data: [0xAA, 0xBB], statusWord: .fileNotFound))
    }

    @Test func wrongLe6CxxResendsTheSameCommandWithTheCorrectedLe() throws {
        let card = try AnswerScript(hex: ["6C08", "01020304050607089000"])
        let read = CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, le: 256)
        let response = try APDUTransmitter().transmit(read, exchange: card.exchange)
        #expect(response.data == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(card.sentHex == ["00B0000000", "00B0000008"])
    }

    @Test func wrongLeIsCorrectedOnlyOnce() throws {
        let card = try AnswerScript(hex: ["6C08", "6C04", "9000"])
        let read = CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, le: 256)
        let response = try APDUTransmitter().transmit(read, exchange: card.exchange)
        #expect(response.statusWord == StatusWord(rawValue: 0x6C04))
        #expect(card.sent.count == 2)
    }

    @Test func aCorrectedLeAnswerCanStillChain() throws {
        let card = try AnswerScript(hex: ["6C02", "01026101", "039000"])
        let read = CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, le: 1)
        let response = try APDUTransmitter().transmit(read, exchange: card.exchange)
        #expect(response.data == [0x01, 0x02, 0x03])
        #expect(card.sentHex == ["00B0000001", "00B0000002", "00C0000001"])
    }

    @Test(arguments: [1, 5, 32])
    func aCardAnswering61xxForeverHitsTheRoundTripCap(_ limit: Int) throws {
        let card = AnswerScript(Array(repeating: [0xAA, 0x61, 0x01], count: limit + 10))
        let transmitter = APDUTransmitter(limits: .init(maxRoundTrips: limit))
        let error = #expect(throws: APDUTransmitterError<CardGone>.self) {
            try transmitter.transmit(try Self.select(), exchange: card.exchange)
        }
        guard case .tooManyRoundTrips(let reported) = error else {
            Issue.record("expected tooManyRoundTrips, got \(String(describing: error))")
            return
        }
        #expect(reported == limit)
        #expect(card.sent.count == limit)
    }

    @Test func aChainWithinTheRoundTripCapSucceeds() throws {
        let card = try AnswerScript(hex: ["AA6101", "BB6101", "CC9000"])
        let response = try APDUTransmitter(limits: .init(maxRoundTrips: 3)).transmit(try Self.select(), exchange: card.exchange)
        #expect(response.data == [0xAA, 0xBB, 0xCC])
    }

    @Test func anOversizedChainedAnswerHitsTheSizeCap() throws {
        let part = [UInt8](repeating: 0xAA, count: 200) + [0x61, 0x00]
        let card = AnswerScript(Array(repeating: part, count: 10))
        let transmitter = APDUTransmitter(limits: .init(maxResponseBytes: 500))
        let error = #expect(throws: APDUTransmitterError<CardGone>.self) {
            try transmitter.transmit(try Self.select(), exchange: card.exchange)
        }
        guard case .responseTooLong(let limit) = error else {
            Issue.record("expected responseTooLong, got \(String(describing: error))")
            return
        }
        #expect(limit == 500)
        #expect(card.sent.count == 3)  // 200 + 200 + 200 passes 500 on the third part
    }

    @Test func aSingleOversizedAnswerHitsTheSizeCap() throws {
        let card = AnswerScript([[UInt8](repeating: 0xAA, count: 11) + [0x90, 0x00]])
        let error = #expect(throws: APDUTransmitterError<CardGone>.self) {
            try APDUTransmitter(limits: .init(maxResponseBytes: 10)).transmit(try Self.select(), exchange: card.exchange)
        }
        guard case .responseTooLong(10) = error else {
            Issue.record("expected responseTooLong(10), got \(String(describing: error))")
            return
        }
    }

    @Test func aChainedAnswerOfExactlyTheCapIsAccepted() throws {
        let card = try AnswerScript(hex: ["0102036103", "0405069000"])
        let response = try APDUTransmitter(limits: .init(maxResponseBytes: 6)).transmit(try Self.select(), exchange: card.exchange)
        #expect(response.data == [1, 2, 3, 4, 5, 6])
    }

    @Test(arguments: [
        (["90"], 1),
        ([""], 0),
        (["AA6101", "61"], 1),
    ] as [([String], Int)])
    func answersShorterThanTheStatusWordAreMalformed(_ answers: [String], _ length: Int) throws {
        let card = try AnswerScript(hex: answers)
        let error = #expect(throws: APDUTransmitterError<CardGone>.self) {
            try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        }
        guard case .malformedResponse(let reported) = error else {
            Issue.record("expected malformedResponse, got \(String(describing: error))")
            return
        }
        #expect(reported == length)
    }

    @Test(arguments: [[], ["AA6102"], ["6C02"]] as [[String]])
    func exchangeFailuresAreWrappedWithTheOriginalError(_ answers: [String]) throws {
        let card = try AnswerScript(hex: answers)
        let error = #expect(throws: APDUTransmitterError<CardGone>.self) {
            try APDUTransmitter().transmit(try Self.select(), exchange: card.exchange)
        }
        guard case .exchange(let underlying) = error else {
            Issue.record("expected exchange, got \(String(describing: error))")
            return
        }
        #expect(underlying == CardGone(step: answers.count + 1))
    }
}
