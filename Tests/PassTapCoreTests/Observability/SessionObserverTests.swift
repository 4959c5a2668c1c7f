import Foundation
import ISO7816
import Logging
import PassTapCore
import PassTapTestSupport
import Synchronization
import Testing
import NDEFSettings
import PassTapConfig

/// The tap coordinator times each session and each APDU round trip on its injected clock.
@Suite(.timeLimit(.minutes(1))) struct SessionObserverTests {
    final class Measurements: Sendable {
        let sessions = Mutex<[(ReaderID, Duration)]>([])
        let roundTrips = Mutex<[(ReaderID, Duration)]>([])

        var observer: SessionObserver {
            SessionObserver(
                sessionFinished: { reader, duration in self.sessions.withLock { $0.append((reader, duration)) } },
                roundTrip: { reader, duration in self.roundTrips.withLock { $0.append((reader, duration)) } })
        }
    }

    let reader = ReaderID.pcsc("Test Reader 00 00")

    @Test func eachExchangeAndTheSessionAreTimedOnTheInjectedClock() throws {
        var configuration = Configuration()
        configuration.aids = [try AID(hex: "A0000000031010"), try AID(hex: "A0000000041010")]
        configuration.ndef.enabled = false  // no Type 4 SELECT after the list: two exchanges exactly
        let clock = TestClock()
        let card = ScriptedCard()
        card.onExchange = { clock.advance(by: .milliseconds(7)) }
        let measurements = Measurements()
        var logger = Logger(label: "passtap.test.observer")
        logger.logLevel = .critical
        let coordinator = TapCoordinator(
            configuration: configuration, features: .standard, logger: logger, events: EventRecorder().sink, observer: measurements.observer, clock: DaemonClock(now: { clock.now }))
        let result = coordinator.read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: card))

        #expect(result.durationMilliseconds == Double(7 * card.received.count))
        let roundTrips = measurements.roundTrips.withLock { $0 }
        #expect(roundTrips.count == card.received.count)
        #expect(card.received.count == 2)
        #expect(roundTrips.allSatisfy { $0.0 == reader && $0.1 == .milliseconds(7) })
        let sessions = measurements.sessions.withLock { $0 }
        #expect(sessions.count == 1)
        #expect(sessions.first?.0 == reader)
        #expect(sessions.first?.1 == .milliseconds(7 * card.received.count))
    }

    @Test func theReadResultCarriesTheSessionsDurationWithoutAnObserver() throws {
        var configuration = Configuration()
        configuration.aids = [try AID(hex: "A0000000041010")]
        configuration.ndef.enabled = false  // one exchange exactly
        let clock = TestClock()
        let card = ScriptedCard()
        card.onExchange = { clock.advance(by: .microseconds(12_345_678)) }
        let events = EventRecorder()
        let coordinator = TapCoordinator(
            configuration: configuration, features: .standard, logger: Logger(label: "passtap.test.observer"), events: events.sink, clock: DaemonClock(now: { clock.now }))
        let result = coordinator.read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: card))
        #expect(result.durationMilliseconds == 12_345.678)
        guard case .readResult(let published) = try #require(events.payloads.first) else { Issue.record("not a read.result"); return }
        #expect(published.durationMilliseconds == 12_345.678)
    }

    @Test func aMemoryCardHasNoSessionToTime() {
        let measurements = Measurements()
        let coordinator = TapCoordinator(
            configuration: Configuration(), features: .standard, logger: Logger(label: "passtap.test.observer"), events: EventRecorder().sink,
            observer: measurements.observer)
        let result = coordinator.read(
            reader: reader, tap: Tap(card: CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "0411"), target: .memory, channel: nil))
        #expect(result.durationMilliseconds == nil)
        #expect(measurements.sessions.withLock { $0.isEmpty })
        #expect(measurements.roundTrips.withLock { $0.isEmpty })
    }
}
