import Foundation
import ISO7816
import Logging
import PassTapCore
import PassTapTestSupport
import Testing
import VAS
import PassTapConfig
import VASSettings

/// `vas.read`s waiting on one reader share its next tap: another `read` holder that waits first
/// for its own merchant cannot take the till's tap, and each read gets only what it asked for.
@Suite(.timeLimit(.minutes(1))) struct TapCoordinatorVASReadTests {
    let reader = ReaderID.pcsc("Test Reader 00 00")
    static let loyalty = "pass.com.example.loyalty"
    static let coffee = "pass.com.example.coffee"

    /// Waits until `count` reads wait on the reader (the queue publishes no event for it).
    private func waitFor(_ count: Int, on queue: PassReadQueue) async throws {
        try await waitUntil("\(count) vas.read waiting") { queue.waitingCount(on: reader) == count }
    }

    /// One tap of a phone holding only the coffee pass ("member 0042"), on a coordinator
    /// configured for loyalty then coffee; returns the published result and the phone's card.
    @discardableResult
    private func tapThePhone(_ vasReads: PassReadQueue) -> (ReadResult, ScriptedCard) {
        var configuration = Configuration()
        configuration.vas = VASSessionTests.settings()
        let phone = VASSessionTests.phoneWithCoffee("member 0042")
        let card = ScriptedCard()
        phone.install(on: card)
        let date = phone.date
        var logger = Logger(label: "passtap.test.coordinator")
        logger.logLevel = .critical
        let coordinator = TapCoordinator(
            configuration: configuration, features: .standard, engine: SessionEngine(clock: DaemonClock(date: { date })), vasReads: vasReads, logger: logger, events: EventRecorder().sink)
        let result = coordinator.read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8080010101", uid: "04A1B2C3D4E5F6"), target: .isoDep, channel: card))
        return (result, card)
    }

    /// Peer B waits first for the loyalty pass; the till then waits with no filter; the phone
    /// holds only the coffee pass.
    @Test func theTillGetsThePassAlthoughAnotherReadForAnotherMerchantWaitedFirst() async throws {
        let vasReads = PassReadQueue()
        let peer = Task { try await vasReads.nextTap(on: reader, merchants: [Self.loyalty], timeout: .seconds(30)) }
        try await waitFor(1, on: vasReads)
        let till = Task { try await vasReads.nextTap(on: reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(2, on: vasReads)

        let (published, card) = tapThePhone(vasReads)

        // One tap, both merchants asked (configured order), one GET VAS DATA each.
        #expect(card.received.filter { $0.first == 0x80 }.count == 2)
        #expect(published.vas?.entries.map(\.status) == [.dataNotFound, .success])
        #expect(vasReads.waitingCount(on: reader) == 0)

        let tillAnswer = try await value(of: till, "the till's vas.read")
        let tillEntries = try #require(tillAnswer.vas?.entries)
        #expect(tillEntries.map(\.status) == [.dataNotFound, .success])
        #expect(tillEntries[1].message == "member 0042")

        // B asked for loyalty only: the coffee pass is not in its answer.
        let peerAnswer = try await value(of: peer, "the peer's vas.read")
        let peerEntries = try #require(peerAnswer.vas?.entries)
        #expect(peerEntries.map(\.passTypeID) == [Self.loyalty, Self.coffee])
        #expect(peerEntries.map(\.status) == [.dataNotFound, .notRequested])
        #expect(peerEntries[1].payload == nil && peerEntries[1].keyID == nil && peerEntries[1].sw == nil)
        #expect(peerAnswer.card == tillAnswer.card)
    }

    /// Two reads that each name one merchant: the tap asks both, in configured order, and each
    /// read sees its own.
    @Test func readsForDifferentMerchantsEachGetTheirOwnFromOneTap() async throws {
        let vasReads = PassReadQueue()
        let wantsCoffee = Task { try await vasReads.nextTap(on: reader, merchants: [Self.coffee], timeout: .seconds(30)) }
        try await waitFor(1, on: vasReads)
        let wantsLoyalty = Task { try await vasReads.nextTap(on: reader, merchants: [Self.loyalty], timeout: .seconds(30)) }
        try await waitFor(2, on: vasReads)

        tapThePhone(vasReads)

        #expect(try await value(of: wantsCoffee, "the coffee read").vas?.entries.map(\.status) == [.notRequested, .success])
        #expect(try await value(of: wantsLoyalty, "the loyalty read").vas?.entries.map(\.status) == [.dataNotFound, .notRequested])
    }
}
