import PassTapCore
import PassTapProtocol

/// `events.subscribe`: the replay from `since`, then live events, on this connection.
///
/// Every connection with the `observe` role gets every event; only one with the `read` role sees
/// decrypted passes. Without it the subscription's view is ``EventView/passesWithheld``: each VAS
/// entry's payload is null and its `withheld` is `"access"`.
struct EventsSubscribeHandler: MethodHandler {
    static let method = RPCMethod.eventsSubscribe
    static let role = AccessRole.observe
    let hub: EventHub
    let daemon: DaemonInfo
    /// `[events] client_queue`, read at each subscription (a reload may change it).
    let queueLimit: @Sendable () -> Int

    /// A handler whose `client_queue` is `queueLimit` now, as a reload may change it.
    init(hub: EventHub, daemon: DaemonInfo, queueLimit: @escaping @Sendable () -> Int) {
        self.hub = hub
        self.daemon = daemon
        self.queueLimit = queueLimit
    }

    /// A handler whose `client_queue` never changes.
    init(hub: EventHub, daemon: DaemonInfo, queueLimit: Int) {
        self.init(hub: hub, daemon: daemon, queueLimit: { queueLimit })
    }

    static let alreadySubscribed = JSONRPCError(
        .alreadySubscribed, "this connection is already subscribed: open another connection for a second stream")

    func handle(_ params: EventsSubscribeParams, context: RequestContext) async -> MethodReply<EventsSubscribeResult> {
        guard !context.alreadySubscribed else { return .failure(Self.alreadySubscribed) }
        do {
            let subscription = try hub.subscribe(
                since: params.since, kinds: params.kinds.map(Set.init), queueLimit: queueLimit(), view: Self.view(for: context.roles))
            let result = EventsSubscribeResult(instance: daemon.instance, oldestSeq: subscription.oldestSeq, nextSeq: subscription.nextSeq)
            return .subscribed(result, subscription)
        } catch {
            return .failure(error.jsonRPCError)
        }
    }

    /// What a connection holding `roles` may see of events.
    static func view(for roles: Set<AccessRole>) -> EventView {
        roles.contains(.read) ? .full : .passesWithheld
    }
}
