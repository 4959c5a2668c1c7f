import ForwardSettings
import PassTapCore
import PassTapProtocol
import PassTapServer

/// `forward.retry`: queue a sink's dead events again. Role `manage`; every call is audited (who,
/// the sink, the outcome). Without a forwarder no sink is known (-32021 `unknown_sink`).
struct ForwardRetryHandler: MethodHandler {
    static let method = RPCMethod.forwardRetry
    static let role = AccessRole.manage
    /// The forwarder, if the daemon runs one.
    let forward: (any ForwardControl)?

    static let isAudited = true
    static let auditedTargetKey = "audit.sink"
    static func auditedTarget(of params: ForwardSinkParams) -> String? { params.sink }

    func handle(_ params: ForwardSinkParams, context: RequestContext) async -> MethodReply<ForwardRetryResult> {
        guard let forward else { return .failure(ForwardControlError.unknownSink(params.sink).jsonRPCError) }
        do {
            return .result(try await forward.retry(sink: params.sink))
        } catch {
            return .failure(error.jsonRPCError)
        }
    }
}
