import ISO7816
import Testing

@Suite struct APDUTransmitterTests {
    struct Broken: Error, Equatable {}

    /// A scripted card: answers in order, records what it was sent.
    final class Script {
        var answers: [[UInt8]]
        var sent: [[UInt8]] = []
        init(_ answers: [[UInt8]]) { self.answers = answers }
        func exchange(_ bytes: [UInt8]) throws(Broken) -> [UInt8] {
            sent.append(bytes)
            guard !answers.isEmpty else { throw Broken() }
            return answers.removeFirst()
        }
    }

    let select = CommandAPDU.select(aid: try! AID(hex: "A0000000041010"))

    @Test func chained61xxIsCollectedWithGetResponse() throws {
        let card = Script([[0x61, 0x03], [0x01, 0x02, 0x61, 0x01], [0x03, 0x90, 0x00]])
        let response = try APDUTransmitter().transmit(select, exchange: card.exchange)
        #expect(response.data == [0x01, 0x02, 0x03])
        #expect(response.statusWord == .success)
        #expect(card.sent.dropFirst().map(\.hexString) == ["00C0000003", "00C0000001"])
    }

    @Test func wrongLe6CxxResendsWithTheCorrectLe() throws {
        let card = Script([[0x6C, 0x08], [1, 2, 3, 4, 5, 6, 7, 8, 0x90, 0x00]])
        let read = CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: 256)
        let response = try APDUTransmitter().transmit(read, exchange: card.exchange)
        #expect(response.data.count == 8)
        #expect(card.sent.last == [0x00, 0xB0, 0x00, 0x00, 0x08])
    }

    @Test func aCardAnswering61xxForeverHitsTheRoundTripCap() {
        let card = Script(Array(repeating: [0xAA, 0x61, 0x01], count: 100))
        #expect {
            try APDUTransmitter(limits: .init(maxRoundTrips: 5)).transmit(select, exchange: card.exchange)
        } throws: { error in
            guard case .tooManyRoundTrips(5) = error as? APDUTransmitterError<Broken> else { return false }
            return card.sent.count == 5
        }
    }

    @Test func anOversizedChainedAnswerHitsTheSizeCap() {
        let card = Script(Array(repeating: [UInt8](repeating: 0xAA, count: 200) + [0x61, 0x00], count: 10))
        #expect {
            try APDUTransmitter(limits: .init(maxResponseBytes: 500)).transmit(select, exchange: card.exchange)
        } throws: { error in
            guard case .responseTooLong(500) = error as? APDUTransmitterError<Broken> else { return false }
            return true
        }
    }

    @Test func shortAnswersAndExchangeFailuresAreTyped() {
        #expect {
            try APDUTransmitter().transmit(select, exchange: Script([[0x90]]).exchange)
        } throws: { error in
            guard case .malformedResponse(1) = error as? APDUTransmitterError<Broken> else { return false }
            return true
        }
        #expect {
            try APDUTransmitter().transmit(select, exchange: Script([]).exchange)
        } throws: { error in
            guard case .exchange(Broken()) = error as? APDUTransmitterError<Broken> else { return false }
            return true
        }
    }
}
