import PassTapCore
import PassTapProtocol

/// `events.subscribe`: the replay from `since`, then live events, on this connection.
struct EventsSubscribeHandler: MethodHandler {
    static let method = RPCMethod.eventsSubscribe
    static let role = AccessRole.observe
    let hub: EventHub
    let daemon: DaemonInfo
    /// `[events] client_queue`.
    let queueLimit: Int

    static let alreadySubscribed = JSONRPCError(
        .alreadySubscribed, "this connection is already subscribed: open another connection for a second stream")

    func handle(_ params: EventsSubscribeParams, context: RequestContext) async -> MethodReply<EventsSubscribeResult> {
        guard !context.alreadySubscribed else { return .failure(Self.alreadySubscribed) }
        do {
            let subscription = try hub.subscribe(since: params.since, kinds: params.kinds.map(Set.init), queueLimit: queueLimit)
            let result = EventsSubscribeResult(instance: daemon.instance, oldestSeq: subscription.oldestSeq, nextSeq: subscription.nextSeq)
            return .subscribed(result, subscription)
        } catch {
            return .failure(error.jsonRPCError)
        }
    }
}
