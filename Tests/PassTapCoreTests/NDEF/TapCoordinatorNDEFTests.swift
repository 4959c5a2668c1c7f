import Foundation
import ISO7816
import Logging
import PassTapCore
import PassTapTestSupport
import Testing
import NDEFSettings
import PassTapConfig

/// `[ndef]` through the tap coordinator: a Type 2 memory tag gets its NDEF read over its pages (no
/// APDU), an ISO-DEP tag gets Type 4 after the AID list found nothing, and `enabled = false` (or a
/// memory card without page memory, such as MIFARE Classic) reads nothing.
@Suite(.timeLimit(.minutes(1))) struct TapCoordinatorNDEFTests {
    let reader = ReaderID.pcsc("Test Reader 00 00")
    let info = CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "04A23C1A7F2D80")

    private func read(_ tap: Tap, ndef: Bool = true, events: EventRecorder = EventRecorder()) -> ReadResult {
        var configuration = Configuration()
        configuration.aids = [try! AID(hex: "A0000000041010")]
        configuration.ndef.enabled = ndef
        var logger = Logger(label: "passtap.test.coordinator")
        logger.logLevel = .critical
        return TapCoordinator(configuration: configuration, features: .standard, logger: logger, events: events.sink).read(reader: reader, tap: tap)
    }

    @Test func aType2TagGetsItsNDEFReadWithoutAnyAPDU() throws {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage)))
        let channel = ScriptedCard()
        let events = EventRecorder()
        let result = read(Tap(card: info, target: .memory, channel: channel, memory: memory), events: events)
        #expect(result.target == .memory)
        #expect(result.ndef?.records?.first?.uri == "https://example.com")
        #expect(result.aid == nil && result.error == nil && result.durationMilliseconds == nil)
        #expect(channel.received.isEmpty)
        #expect(memory.reads == [3, 7])
        guard case .readResult(let published) = events.payloads.first else {
            Issue.record("no read.result published")
            return
        }
        #expect(published.ndef == result.ndef)
    }

    @Test func ndefOffReadsNoPageAndPublishesNull() {
        let memory = ScriptedTagMemory(image: Type2Tag.ntag215(data: Type2Tag.ndefTLV(Type2Tag.uriMessage)))
        let result = read(Tap(card: info, target: .memory, channel: nil, memory: memory), ndef: false)
        #expect(result.ndef == nil)
        #expect(memory.reads.isEmpty)
    }

    @Test func aMemoryCardWithoutPageMemoryGetsNoNDEF() {
        #expect(read(Tap(card: info, target: .memory, channel: nil)).ndef == nil)
    }

    @Test func anISODepTagGetsType4AfterTheAIDListAndNoneWhenOff() throws {
        let card = Type4Tag(message: Type2Tag.uriMessage).card()
        let result = read(Tap(card: info, target: .isoDep, channel: card))
        #expect(result.ndef?.tagType == .type4)
        #expect(result.ndef?.records?.first?.uri == "https://example.com")
        #expect(card.received.first == CommandAPDU.select(aid: try AID(hex: "A0000000041010")).bytes)
        let quiet = Type4Tag(message: Type2Tag.uriMessage).card()
        #expect(read(Tap(card: info, target: .isoDep, channel: quiet), ndef: false).ndef == nil)
        #expect(quiet.received.count == 1)
    }
}
