import PassTapCore
import PassTapProtocol

/// Who asks, as a handler sees it.
package struct RequestContext: Sendable {
    /// The roles the connection's peer holds.
    package var roles: Set<AccessRole>
    /// Whether the connection already streams a subscription.
    package var alreadySubscribed: Bool
    /// The connection's peer: a Unix peer as the kernel saw it at connect time, or a web token.
    package var peer: ClientPeer

    /// A context; tests leave out `peer` for a root peer.
    package init(roles: Set<AccessRole>, alreadySubscribed: Bool, peer: ClientPeer = .unix(PeerCredentials(pid: 0, uid: 0, gid: 0))) {
        self.roles = roles
        self.alreadySubscribed = alreadySubscribed
        self.peer = peer
    }
}

/// What a handler answers: a result, an error, or (`events.subscribe`) a result and the
/// subscription the connection then pumps.
package enum MethodReply<Output: Encodable & Sendable>: Sendable {
    case result(Output)
    case failure(JSONRPCError)
    case subscribed(Output, EventSubscription)

    /// `ok`, or the error's reason, for the audit line.
    package var outcome: String {
        switch self {
        case .result, .subscribed: return "ok"
        case .failure(let error): return error.code.reason
        }
    }
}

/// One socket method: its name, its params, its result and the role it needs. The dispatcher
/// checks the role and decodes the params (required ones included: absent params are decoded as
/// `{}`, so a missing required member is named) before ``handle(_:context:)`` runs.
package protocol MethodHandler: Sendable {
    associatedtype Params: Decodable & Sendable
    associatedtype Output: Encodable & Sendable
    /// The method's name on the wire.
    static var method: RPCMethod { get }
    /// The role a connection needs to call it.
    static var role: AccessRole { get }
    /// Answers one call.
    func handle(_ params: Params, context: RequestContext) async -> MethodReply<Output>
    /// Whether every call writes an audit line (who, which reader, which method, the outcome;
    /// never data), refused calls included. `false` by default.
    static var isAudited: Bool { get }
    /// The reader a call acts on, for its audit line.
    static func auditedReader(of params: Params) -> ReaderID?
    /// The metadata key of what a call acts on, in its audit line: `audit.reader` by default,
    /// `audit.sink` for the `forward.*` methods.
    static var auditedTargetKey: String { get }
    /// What a call acts on, for its audit line: by default its reader (``auditedReader(of:)``).
    static func auditedTarget(of params: Params) -> String?
}

extension MethodHandler {
    package static var isAudited: Bool { false }
    package static func auditedReader(of params: Params) -> ReaderID? { nil }
    package static var auditedTargetKey: String { "audit.reader" }
    package static func auditedTarget(of params: Params) -> String? { auditedReader(of: params)?.rawValue }
}
