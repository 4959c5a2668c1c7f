import Foundation
import ISO7816
import Logging
import PassTapCore
import PassTapTestSupport
import Testing
import PassTapConfig
import VASSettings

/// The tap coordinator without pcscd: an ISO-DEP card gets the APDU session, a memory card its
/// identity alone, and a waiting `vas.read` is left for a tap that can answer it.
@Suite(.timeLimit(.minutes(1))) struct TapCoordinatorTests {
    let reader = ReaderID.pcsc("Test Reader 00 00")
    let mastercard = "A0000000041010"
    let fci: [UInt8] = [0x6F, 0x09, 0x84, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10]

    private func coordinator(
        _ configuration: Configuration, engine: SessionEngine = SessionEngine(), vasReads: PassReadQueue = PassReadQueue(), events: EventRecorder
    ) -> TapCoordinator {
        var logger = Logger(label: "passtap.test.coordinator")
        logger.logLevel = .critical
        return TapCoordinator(configuration: configuration, features: .standard, engine: engine, vasReads: vasReads, logger: logger, events: events.sink)
    }

    private func configuration() throws -> Configuration {
        var configuration = Configuration()
        configuration.aids = [try AID(hex: mastercard)]
        return configuration
    }

    @Test func anISODepCardGetsTheSessionAndItsResultIsPublished() throws {
        let events = EventRecorder()
        let card = ScriptedCard()
        card.applications[mastercard] = fci
        let result = coordinator(try configuration(), events: events)
            .read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: card))
        #expect(result.target == .isoDep)
        #expect(result.aid?.attempts.count == 1)
        #expect(result.error == nil)
        #expect(card.received.count == 1)
        #expect(events.kinds == [.readResult])
    }

    @Test func theConfiguredBudgetEndsASlowSessionWithSessionTimeout() throws {
        var configuration = try configuration()
        configuration.aids = (0..<10).map { try! AID(bytes: [0xF0, 0, 0, 0, UInt8($0)]) }
        configuration.sessionBudgetMilliseconds = 250
        let clock = TestClock()
        let card = ScriptedCard()
        card.onExchange = { clock.advance(by: .milliseconds(100)) }
        let events = EventRecorder()
        let result = coordinator(configuration, engine: SessionEngine(clock: DaemonClock(now: { clock.now })), events: events)
            .read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: card))
        #expect(result.error?.code == .sessionTimeout)
        #expect(card.received.count == 3)
        #expect(events.kinds == [.readResult])
    }

    @Test func aMemoryCardGetsItsIdentityAndNoAPDUSession() throws {
        let events = EventRecorder()
        let card = ScriptedCard()
        let info = CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "04112233445566")
        let result = coordinator(try configuration(), events: events)
            .read(reader: reader, tap: Tap(card: info, target: .memory, channel: card))
        #expect(result.target == .memory)
        #expect(result.card.uid == "04112233445566")
        #expect(result.aid == nil && result.vas == nil && result.error == nil)
        #expect(card.received.isEmpty)
        guard case .readResult(let published) = events.payloads.first else {
            Issue.record("no read.result published")
            return
        }
        #expect(published == result)
    }

    @Test func aMemoryCardWithoutAnyChannelIsNotATransportFailure() throws {
        let events = EventRecorder()
        let result = coordinator(try configuration(), events: events)
            .read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "04112233445566"), target: .memory, channel: nil))
        #expect(result.error == nil)
        #expect(result.target == .memory)
    }

    @Test func aMemoryCardLeavesAWaitingVASReadForThePhoneThatComesNext() async throws {
        var configuration = try configuration()
        configuration.vas.enabled = true
        let vasReads = PassReadQueue()
        let waiting = Task { try await vasReads.nextTap(on: reader, merchants: nil, timeout: .seconds(30)) }
        defer { waiting.cancel() }
        try await waitUntil("the vas.read to queue") { vasReads.waitingCount(on: reader) != 0 }
        coordinator(configuration, vasReads: vasReads, events: EventRecorder())
            .read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "04112233445566"), target: .memory, channel: ScriptedCard()))
        #expect(vasReads.waitingCount(on: reader) == 1)
    }
}
