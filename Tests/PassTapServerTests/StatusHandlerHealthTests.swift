import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol
import Testing

@testable import PassTapServer

/// `status` with its health sources injected: the ledger's backends and last taps, the last
/// healthy check measured on the injected clock, the clock state as given.
@Suite(.timeLimit(.minutes(1))) struct StatusHandlerHealthTests {
    let reader = ReaderID.pcsc("Zeta Reader 00 00")
    let daemon = DaemonInfo(version: "9.9.9", instance: "instance-1", started: .now)

    @Test func statusReportsBackendsLastTapsAndTheTimeSinceTheLastCheck() async throws {
        let tapped = Date(timeIntervalSince1970: 1_795_000_000.25)
        let ledger = HealthLedger(backends: ["pcsc"], clock: DaemonClock(date: { tapped }))
        ledger.observe(.backendUp, nil, .backend(name: "pcsc", reason: nil))
        ledger.observe(.readResult, reader, .readResult(ReadResult(card: CardInfo(atr: "3B", uid: "04"), target: .memory, session: nil)))
        let checked = daemon.started + .seconds(10)
        let now = daemon.started + .milliseconds(12_345)
        let handler = StatusHandler(
            daemon: daemon, readers: { [ReaderInfo(id: self.reader, name: "Zeta Reader 00 00", backend: "pcsc", state: .empty)] },
            clock: DaemonClock(now: { now }),
            health: HealthSources(ledger: ledger, lastHealthyCheck: { checked }, staleAfter: .seconds(30), clockSynchronised: { true }))
        guard case .result(let status) = await handler.handle(NoParams(), context: RequestContext(roles: [.observe], alreadySubscribed: false))
        else {
            Issue.record("status failed")
            return
        }
        #expect(status.backends == [StatusBackend(name: "pcsc", up: true, reason: nil)])
        #expect(status.lastTaps == [StatusLastTap(reader: reader, time: "2026-11-18T11:06:40.250Z", outcome: .memoryCard)])
        #expect(status.health == StatusHealth(state: .healthy, problems: [], lastCheckMilliseconds: 2345, clockSynchronised: true))
    }

    @Test func aStaleCheckAndAnUnsynchronisedClockDegrade() async throws {
        let checked = daemon.started
        let now = daemon.started + .seconds(45)
        let handler = StatusHandler(
            daemon: daemon, readers: { [] }, clock: DaemonClock(now: { now }),
            health: HealthSources(
                ledger: HealthLedger(backends: ["pcsc"]), lastHealthyCheck: { checked }, staleAfter: .seconds(30), clockSynchronised: { false }))
        guard case .result(let status) = await handler.handle(NoParams(), context: RequestContext(roles: [.observe], alreadySubscribed: false))
        else {
            Issue.record("status failed")
            return
        }
        let health = try #require(status.health)
        #expect(health.state == .degraded)
        #expect(health.lastCheckMilliseconds == 45_000)
        #expect(health.problems.count == 2)
        #expect(status.backends == [StatusBackend(name: "pcsc", up: nil, reason: nil)])
    }
}
