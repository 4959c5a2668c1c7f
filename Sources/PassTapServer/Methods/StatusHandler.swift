import PassTapCore
import PassTapProtocol

/// `status`: the daemon's version, instance, uptime and readers.
struct StatusHandler: MethodHandler {
    static let method = RPCMethod.status
    static let role = AccessRole.observe
    let daemon: DaemonInfo
    let readers: @Sendable () -> [ReaderInfo]
    /// The monotonic clock's now (tests inject one).
    var now: @Sendable () -> ContinuousClock.Instant = { .now }

    func handle(_ params: NoParams, context: RequestContext) async -> MethodReply<StatusResult> {
        .result(
            StatusResult(
                version: daemon.version, protocolVersion: PassTapProtocolVersion, instance: daemon.instance,
                uptimeSeconds: daemon.uptimeSeconds(at: now()), readers: readers()))
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
