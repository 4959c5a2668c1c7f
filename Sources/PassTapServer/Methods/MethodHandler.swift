import PassTapCore
import PassTapProtocol

/// What a connection may do, by role (`[access]` in `passtapd.toml`).
public enum AccessRole: String, Hashable, Sendable, CaseIterable, Comparable {
    /// `status`, `readers.list`, `events.subscribe` (pass messages withheld).
    case observe
    /// Pass messages in events, and `vas.read`.
    case read
    /// `card.transmit`.
    case transmit

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Who asks, as a handler sees it.
struct RequestContext: Sendable {
    /// The roles the connection's peer holds.
    var roles: Set<AccessRole>
    /// Whether the connection already streams a subscription.
    var alreadySubscribed: Bool
}

/// What a handler answers: a result, an error, or (`events.subscribe`) a result and the
/// subscription the connection then pumps.
enum MethodReply<Output: Encodable & Sendable>: Sendable {
    case result(Output)
    case failure(JSONRPCError)
    case subscribed(Output, EventSubscription)
}

/// One socket method: its name, its params, its result and the role it needs. The dispatcher
/// checks the role and decodes the params (required ones included: absent params are decoded as
/// `{}`, so a missing required member is named) before ``handle(_:context:)`` runs.
protocol MethodHandler: Sendable {
    associatedtype Params: Decodable & Sendable
    associatedtype Output: Encodable & Sendable
    /// The method's name on the wire.
    static var method: RPCMethod { get }
    /// The role a connection needs to call it.
    static var role: AccessRole { get }
    /// Answers one call.
    func handle(_ params: Params, context: RequestContext) async -> MethodReply<Output>
}
