import Foundation
import ISO7816
import PassTapCore
import SmartTap
import Testing

/// The ledger behind `status`: backends from their events, each present reader's last tap.
@Suite(.timeLimit(.minutes(1))) struct HealthLedgerTests {
    let reader = ReaderID.pcsc("Test Reader 00 00")
    let card = CardInfo(atr: "3B8180018080", uid: "04A1B2C3")

    @Test func backendsStartUnknownAndFollowTheirEvents() {
        let ledger = HealthLedger(backends: ["pcsc", "nfc"])
        #expect(ledger.backends.map(\.name) == ["nfc", "pcsc"])
        #expect(ledger.backends.allSatisfy { $0.up == nil })
        ledger.observe(.backendDown, nil, .backend(name: "pcsc", reason: "pcscd is not running"))
        #expect(ledger.backends.first { $0.name == "pcsc" }?.up == false)
        #expect(ledger.backends.first { $0.name == "pcsc" }?.reason == "pcscd is not running")
        ledger.observe(.backendUp, nil, .backend(name: "pcsc", reason: nil))
        #expect(ledger.backends.first { $0.name == "pcsc" } == HealthLedger.Backend(name: "pcsc", up: true, reason: nil))
    }

    @Test func theLastTapIsKeptPerReaderAndGoesWithTheReader() {
        let times = [Date(timeIntervalSince1970: 1_000), Date(timeIntervalSince1970: 2_000)]
        let index = Counter()
        let ledger = HealthLedger(backends: ["pcsc"], clock: DaemonClock(date: { times[index.next()] }))
        let hub = EventHub(lineEncoder: TestLineEncoder(), observers: [ledger])
        let sink = hub.sink
        sink.publish(.readResult, reader, .readResult(ReadResult(card: card, target: .memory, session: nil)))
        sink.publish(.readResult, reader, .readResult(ReadResult(card: card, target: .isoDep, session: SessionOutcome())))
        #expect(hub.nextSeq == 3)
        #expect(ledger.lastTaps == [HealthLedger.LastTap(reader: reader, time: times[1], outcome: .nothing)])
        sink.publish(.readerRemoved, reader, .reader(ReaderInfo(id: reader, name: "Test Reader 00 00", backend: "pcsc", state: .empty)))
        #expect(ledger.lastTaps.isEmpty)
    }

    @Test func tapsAreCountedPerReaderByOutcomeAndGoWithTheReader() throws {
        let other = ReaderID.pcsc("Other Reader 00 00")
        let ledger = HealthLedger(backends: ["pcsc"])
        let memory = ReadResult(card: card, target: .memory, session: nil)
        let failed = ReadResult(card: card, target: .isoDep, session: SessionOutcome(error: ReadError(.cardRemoved, "gone")))
        for result in [memory, failed, memory] { ledger.observe(.readResult, reader, .readResult(result)) }
        ledger.observe(.readResult, other, .readResult(failed))
        #expect(ledger.taps(of: reader) == TapCounts([.memoryCard: 2, .error: 1]))
        #expect(ledger.taps(of: reader).total == 3)
        let infos = [ReaderInfo(id: reader, name: "a", backend: "pcsc", state: .empty), ReaderInfo(id: .pcsc("New 00 00"), name: "b", backend: "pcsc", state: .empty)]
        #expect(ledger.counting(infos).map(\.taps) == [TapCounts([.memoryCard: 2, .error: 1]), TapCounts()])
        ledger.observe(.readerRemoved, reader, .reader(infos[0]))
        #expect(ledger.taps(of: reader) == TapCounts())
        #expect(ledger.taps(of: other) == TapCounts([.error: 1]))
    }

    @Test func tapCountsNameEveryOutcomeOnTheWire() throws {
        let data = try JSONEncoder().encode(TapCounts([.pass: 3, .error: 1]))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        #expect(object == ["pass": 3, "application": 0, "tag": 0, "nothing": 0, "memory_card": 0, "error": 1])
        #expect(try JSONDecoder().decode(TapCounts.self, from: Data(#"{"pass":2,"future_outcome":9}"#.utf8)) == TapCounts([.pass: 2]))
    }

    @Test(arguments: [
        (ReadResult(card: CardInfo(atr: "3B", uid: "04"), target: .memory, session: nil), TapOutcome.memoryCard),
        (ReadResult(card: CardInfo(atr: "3B", uid: "04"), target: .isoDep, session: SessionOutcome()), .nothing),
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .isoDep,
                session: SessionOutcome(aid: AIDSessionResult(selected: try! AID(hex: "A0000000041010")))), .application
        ),
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .isoDep,
                session: SessionOutcome(
                    aid: AIDSessionResult(selected: try! AID(hex: "A0000000041010")), error: ReadError(.cardRemoved, "gone"))), .error
        ),
        // A Google Smart Tap read is a pass, as an Apple VAS one is; a refusal is not.
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .isoDep,
                session: SessionOutcome(smartTap: SmartTapSessionResult(offered: true, status: .success))), .pass
        ),
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .isoDep,
                session: SessionOutcome(smartTap: SmartTapSessionResult(offered: true, status: .noPass))), .nothing
        ),
        // A tag whose NDEF message was read is a tag, Type 2 or Type 4; one without is not.
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .memory, session: nil,
                ndef: NDEFReadResult(tagType: .type2, recordCount: 1, records: [])), .tag
        ),
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .memory, session: nil,
                ndef: NDEFReadResult(tagType: .type2, problem: "no NDEF TLV")), .memoryCard
        ),
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .isoDep,
                session: SessionOutcome(ndef: NDEFReadResult(tagType: .type4, recordCount: 1, records: []))), .tag
        ),
        (
            ReadResult(
                card: CardInfo(atr: "3B", uid: "04"), target: .isoDep,
                session: SessionOutcome(ndef: NDEFReadResult(tagType: .type4, problem: "SELECT D2760000850101 answered 6A82"))), .nothing
        ),
    ])
    func eachTapHasOneOutcome(result: ReadResult, outcome: TapOutcome) {
        #expect(TapOutcome(result) == outcome)
    }

    final class Counter: @unchecked Sendable {
        // Only the test's own thread calls it (the sink runs synchronously).
        private var value = 0
        func next() -> Int {
            defer { value += 1 }
            return value
        }
    }
}
