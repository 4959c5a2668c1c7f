import ForwardSettings
import PassTapCore
import PassTapProtocol
import PassTapServer

/// `forward.drop`: drop everything a sink still has to deliver, pending and dead (the forwarder
/// announces it with `forward.dropped`). Role `manage`; every call is audited (who, the sink, the
/// outcome). Without a forwarder no sink is known (-32021 `unknown_sink`).
struct ForwardDropHandler: MethodHandler {
    static let method = RPCMethod.forwardDrop
    static let role = AccessRole.manage
    /// The forwarder, if the daemon runs one.
    let forward: (any ForwardControl)?

    static let isAudited = true
    static let auditedTargetKey = "audit.sink"
    static func auditedTarget(of params: ForwardSinkParams) -> String? { params.sink }

    func handle(_ params: ForwardSinkParams, context: RequestContext) async -> MethodReply<ForwardDropResult> {
        guard let forward else { return .failure(ForwardControlError.unknownSink(params.sink).jsonRPCError) }
        do {
            return .result(try await forward.drop(sink: params.sink))
        } catch {
            return .failure(error.jsonRPCError)
        }
    }
}
