import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Synchronization
import Testing
import VAS
import VASSettings

/// A cryptogram whose one-time phone key was already read is `replayed` and its message withheld;
/// `stale` wins when both apply. The engine's replay cache is shared, as the daemon shares it
/// between readers.
@Suite(.timeLimit(.minutes(1))) struct VASReplayTests {
    /// A phone that answers the coffee merchant with the same captured cryptogram every time.
    static func replayingPhone() throws -> VASPhone {
        var phone = VASSessionTests.phoneWithCoffee()
        let cryptogram = try VASCryptogramSealer.seal(
            payload: VASPayload(timestampRaw: phone.timestamp, message: Array("member 0042".utf8)),
            merchantPublicKey: VASSessionTests.coffeeKey.publicKey, passTypeIdentifier: PassTypeIdentifier("pass.com.example.coffee"))
        phone.overrideAnswer = BERTLVWriter.encode(tag: 0x70, value: BERTLVWriter.encode(tag: 0x9F27, value: cryptogram.bytes)) + [0x90, 0x00]
        return phone
    }

    /// One tap of `phone` through `engine`: the coffee merchant's entry.
    static func tap(_ phone: VASPhone, _ engine: SessionEngine, _ settings: Configuration.VAS = VASSessionTests.settings(freshness: 60)) throws -> VASEntry {
        let card = ScriptedCard()
        phone.install(on: card)
        let outcome = engine.run(SessionPlan(aids: [], vas: settings.plan()), on: card)
        return try #require(outcome.vas?.entries[1])
    }

    @Test func theSameCryptogramReadTwiceIsReplayedAndItsMessageWithheld() throws {
        let phone = try Self.replayingPhone()
        let host = TestClock(date: phone.date)
        let engine = SessionEngine(clock: host.daemonClock)
        let first = try Self.tap(phone, engine)
        #expect(first.status == .success && first.message == "member 0042")
        host.advance(by: .seconds(5))
        let again = try Self.tap(phone, engine)
        #expect(again.status == .replayed)
        #expect(again.message == nil && again.messageHex == nil && again.timestampRaw == nil && again.variant == nil)
        #expect(again.keyID == VASSessionTests.coffeeKey.keyID && again.sw == "9000")
        #expect(again.problem == "this cryptogram's one-time phone key was already read 5 s ago: a replayed read (a phone makes a new key for every read), so its message is withheld")
    }

    @Test func aNewCryptogramFromTheSamePhoneIsNotAReplay() throws {
        let phone = VASSessionTests.phoneWithCoffee()
        let engine = SessionEngine(clock: DaemonClock(date: { phone.date }))
        #expect(try Self.tap(phone, engine).status == .success)
        #expect(try Self.tap(phone, engine).status == .success)
        #expect(engine.replays.count == 2)
    }

    @Test func aReplayOutsideTheFreshnessWindowIsStaleNotReplayed() throws {
        let phone = try Self.replayingPhone()
        let host = TestClock(date: phone.date)
        let engine = SessionEngine(clock: host.daemonClock)
        #expect(try Self.tap(phone, engine).status == .success)
        host.advance(by: .seconds(61))
        let late = try Self.tap(phone, engine)
        #expect(late.status == .stale && late.message == nil)
        #expect(late.problem?.contains("61 s old") == true)
    }

    @Test func publishStaleNeverPublishesAReplay() throws {
        let phone = try Self.replayingPhone()
        var settings = VASSessionTests.settings(freshness: 60)
        settings.publishStale = true
        let engine = SessionEngine(clock: DaemonClock(date: { phone.date }))
        #expect(try Self.tap(phone, engine, settings).status == .success)
        let again = try Self.tap(phone, engine, settings)
        #expect(again.status == .replayed && again.message == nil)
    }

    @Test func aReplayOnAnotherReaderIsCaught() throws {
        let phone = try Self.replayingPhone()
        let shared = VASReplayCache()
        let firstReader = SessionEngine(clock: DaemonClock(date: { phone.date }), replays: shared)
        let secondReader = SessionEngine(clock: DaemonClock(date: { phone.date }), replays: shared)
        #expect(try Self.tap(phone, firstReader).status == .success)
        #expect(try Self.tap(phone, secondReader).status == .replayed)
    }

    @Test func withTheFreshnessCheckOffReplaysAreStillCaught() throws {
        let phone = try Self.replayingPhone()
        let host = TestClock(date: phone.date)
        let engine = SessionEngine(clock: host.daemonClock)
        let off = VASSessionTests.settings(freshness: 0)
        #expect(try Self.tap(phone, engine, off).status == .success)
        host.advance(by: .seconds(86_400))
        #expect(try Self.tap(phone, engine, off).status == .replayed)
    }
}

/// A reload that changes `freshness_s` never makes an earlier cryptogram acceptable again: a key
/// is not forgotten by age; the freshness check judges age with the window of the moment.
@Suite(.timeLimit(.minutes(1))) struct VASReplayReloadTests {
    @Test func aReplayAfterAReloadWidensTheWindowIsStillCaught() throws {
        let phone = try VASReplayTests.replayingPhone()
        let host = TestClock(date: phone.date)
        let engine = SessionEngine(clock: host.daemonClock)
        #expect(try VASReplayTests.tap(phone, engine, VASSessionTests.settings(freshness: 60)).status == .success)
        // Past twice the old window, inside the new one.
        host.advance(by: .seconds(121))
        let again = try VASReplayTests.tap(phone, engine, VASSessionTests.settings(freshness: 600))
        #expect(again.status == .replayed && again.message == nil)
    }

    @Test func aReplayAfterTheWindowWasNarrowedAndWidenedAgainIsStillCaught() throws {
        let phone = try VASReplayTests.replayingPhone()
        let host = TestClock(date: phone.date)
        let engine = SessionEngine(clock: host.daemonClock)
        #expect(try VASReplayTests.tap(phone, engine, VASSessionTests.settings(freshness: 60)).status == .success)
        // A reload narrows the window, and another phone's read comes: a cache that judged its
        // keys' age by this window would drop the first key here.
        host.advance(by: .seconds(30))
        let other = VASSessionTests.phoneWithCoffee()
        #expect(try VASReplayTests.tap(other, engine, VASSessionTests.settings(freshness: 10)).status == .stale)
        #expect(engine.replays.count == 2)
        // Another widens it again: the replay is inside it, and still a replay.
        host.advance(by: .seconds(10))  // 40 s after the phone's timestamp
        let again = try VASReplayTests.tap(phone, engine, VASSessionTests.settings(freshness: 600))
        #expect(again.status == .replayed && again.message == nil)
    }
}
