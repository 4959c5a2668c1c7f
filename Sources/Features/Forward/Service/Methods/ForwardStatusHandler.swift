import ForwardSettings
import PassTapCore
import PassTapProtocol
import PassTapServer

/// `forward.status`: the outbox and each sink's backlog, from the forwarder. Without one
/// (forwarding not started), `enabled: false` and no sink. Never a secret: the forwarder's
/// answer carries names, counts and error texts only.
///
/// The error texts may name a database host, a role and what a server said: only a peer with
/// `manage` gets them. Any other `observe` peer (every local user by default, and web tokens)
/// gets the counts and each error's class (``ForwardStatusResult/withoutErrorTexts()``).
struct ForwardStatusHandler: MethodHandler {
    static let method = RPCMethod.forwardStatus
    static let role = AccessRole.observe
    /// The forwarder, if the daemon runs one.
    let forward: (any ForwardControl)?
    /// `[forward]` in force, for the answer without a forwarder.
    let settings: @Sendable () -> Configuration.Forward

    func handle(_ params: NoParams, context: RequestContext) async -> MethodReply<ForwardStatusResult> {
        if let forward {
            let status = await forward.status()
            return .result(context.roles.contains(.manage) ? status : status.withoutErrorTexts())
        }
        let settings = settings()
        return .result(
            ForwardStatusResult(
                enabled: false, source: settings.effectiveSource, pendingBytes: 0, maxPendingBytes: settings.maxPendingBytes,
                dropped: 0, sinks: []))
    }
}
