import PassTapCore
import PassTapProtocol

/// `status`: the daemon's version, instance, uptime, readers, backends, last taps and health.
struct StatusHandler: MethodHandler {
    static let method = RPCMethod.status
    static let role = AccessRole.observe
    let daemon: DaemonInfo
    let readers: @Sendable () -> [ReaderInfo]
    /// The clock uptime is read on (its monotonic time; tests inject one).
    var clock: DaemonClock = .system
    /// Backends, last taps, the last healthy check and the clock.
    var health = HealthSources()

    func handle(_ params: NoParams, context: RequestContext) async -> MethodReply<StatusResult> {
        let now = clock.now
        let readers = readers()
        let backends = (health.ledger?.backends ?? []).map { StatusBackend(name: $0.name, up: $0.up, reason: $0.reason) }
        let lastTaps = (health.ledger?.lastTaps ?? []).map {
            StatusLastTap(reader: $0.reader, time: RFC3339.string(from: $0.time), outcome: $0.outcome)
        }
        let verdict = StatusHealth.evaluate(
            backends: backends, readers: readers, sinceLastCheck: health.lastHealthyCheck().map { now - $0 },
            staleAfter: health.staleAfter, clockSynchronised: health.clockSynchronised(), featureProblems: health.problems())
        return .result(
            StatusResult(
                version: daemon.version, protocolVersion: PassTapProtocolVersion, instance: daemon.instance,
                uptimeSeconds: daemon.uptimeSeconds(at: now), readers: readers, backends: backends, lastTaps: lastTaps,
                health: verdict, webClients: health.webClients?()))
    }
}

/// `readers.list`: every reader with its state.
struct ReadersListHandler: MethodHandler {
    static let method = RPCMethod.readersList
    static let role = AccessRole.observe
    let readers: @Sendable () -> [ReaderInfo]

    func handle(_ params: NoParams, context: RequestContext) async -> MethodReply<ReadersListResult> {
        .result(ReadersListResult(readers: readers()))
    }
}
