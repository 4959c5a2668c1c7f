import PassTapCore
import PassTapProtocol
import PassTapServer
import Testing

/// What makes `status` say healthy, degraded or down.
@Suite(.timeLimit(.minutes(1))) struct StatusHealthTests {
    let up = StatusBackend(name: "pcsc", up: true, reason: nil)
    let reader = ReaderInfo(id: .pcsc("R 00 00"), name: "R 00 00", backend: "pcsc", state: .empty)

    func evaluate(
        backends: [StatusBackend]? = nil, readers: [ReaderInfo]? = nil, sinceLastCheck: Duration? = nil, staleAfter: Duration? = nil,
        clock: Bool? = true
    ) -> StatusHealth {
        StatusHealth.evaluate(
            backends: backends ?? [up], readers: readers ?? [reader], sinceLastCheck: sinceLastCheck, staleAfter: staleAfter,
            clockSynchronised: clock)
    }

    @Test func allWellIsHealthyWithNoProblems() {
        let health = evaluate(sinceLastCheck: .milliseconds(1500), staleAfter: .seconds(30))
        #expect(health.state == .healthy)
        #expect(health.problems.isEmpty)
        #expect(health.lastCheckMilliseconds == 1500)
        #expect(health.clockSynchronised == true)
    }

    @Test func anUnknownBackendStateOrClockIsNotAProblem() {
        let health = evaluate(backends: [StatusBackend(name: "nfc", up: nil, reason: nil)], clock: nil)
        #expect(health.state == .healthy)
    }

    /// An nfc-only daemon is graded as a pcsc-only one: its backend reports `backend.up` once
    /// libnfc initialises, device or not, and `backend.down` when it cannot.
    @Test func anNFCOnlyDaemonIsGradedByItsBackend() {
        let nfcReader = ReaderInfo(id: ReaderID(backend: .nfc, name: "pn532_uart:/dev/ttyUSB0"), name: "pn532_uart:/dev/ttyUSB0", backend: "nfc", state: .empty)
        let up = StatusBackend(name: "nfc", up: true, reason: nil)
        let down = StatusBackend(name: "nfc", up: false, reason: "libnfc nfc_init failed: libnfc could not allocate a context")
        #expect(evaluate(backends: [up], readers: [nfcReader]) == StatusHealth(state: .healthy, problems: [], lastCheckMilliseconds: nil, clockSynchronised: true))
        // No device yet is not a fault, as a pcsc backend without a reader is not.
        #expect(evaluate(backends: [up], readers: []).state == .healthy)
        let failed = evaluate(backends: [down], readers: [])
        #expect(failed.state == .down)
        #expect(failed.problems == ["no reader backend is up", "backend nfc is down: libnfc nfc_init failed: libnfc could not allocate a context"])
        // Beside a pcsc backend that is up, it only degrades.
        #expect(evaluate(backends: [self.up, down]).state == .degraded)
    }

    @Test func eachDegradationIsNamed() {
        let unsynchronised = evaluate(clock: false)
        #expect(unsynchronised.state == .degraded)
        #expect(unsynchronised.problems == ["the system clock is not synchronised (VAS freshness depends on it)"])

        let busy = evaluate(readers: [ReaderInfo(id: .pcsc("R 00 00"), name: "R 00 00", backend: "pcsc", state: .unavailable, reason: "held")])
        #expect(busy.state == .degraded)
        #expect(busy.problems == ["reader pcsc:R 00 00 is unavailable: held"])

        let stale = evaluate(sinceLastCheck: .seconds(31), staleAfter: .seconds(30))
        #expect(stale.state == .degraded)
        #expect(stale.problems == ["the last healthy check is 31000 ms old (limit 30000 ms)"])

        let oneDown = evaluate(backends: [up, StatusBackend(name: "nfc", up: false, reason: "no device")])
        #expect(oneDown.state == .degraded)
        #expect(oneDown.problems == ["backend nfc is down: no device"])
    }

    @Test func noBackendUpIsDown() {
        let down = evaluate(backends: [StatusBackend(name: "pcsc", up: false, reason: "pcscd is not running")], clock: false)
        #expect(down.state == .down)
        #expect(down.problems.first == "no reader backend is up")
        #expect(down.problems.count == 3)
        #expect(evaluate(backends: []).state == .down)
    }
}
