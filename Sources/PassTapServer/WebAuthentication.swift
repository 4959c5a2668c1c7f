import Foundation
import NIOCore
import PassTapCore
import PassTapProtocol

/// The `auth` step of one `/rpc` connection: what its lines get until it authenticates.
///
/// The first request must be `{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"..."}}`.
/// Before it, every other method is answered `unauthenticated` (-32017) and the connection stays;
/// a line that is not a request gets the socket's parse or envelope error. `auth` itself either
/// succeeds (`{"token": NAME, "roles": [...]}`), or is refused (`auth_failed`,
/// `auth_rate_limited`, a token at `max_clients_per_token`) and the connection closes.
struct WebAuthentication: Sendable {
    /// The method's wire name. Not an ``RPCMethod``: the Unix socket has no `auth`.
    static let method = "auth"

    /// What a line before `auth` comes to.
    enum Step {
        /// Nothing to send (a blank line, a client notification).
        case silent
        /// Send this and go on waiting for `auth`.
        case reply(ByteBuffer)
        /// Authenticated: send the answer; the connection now has `peer` and `roles`, and `end`
        /// must run when it ends.
        case admitted(reply: ByteBuffer, peer: ClientPeer, roles: Set<AccessRole>, end: @Sendable () -> Void)
        /// Refused: send this, then close.
        case refused(ByteBuffer)
    }

    let sessions: WebSessions
    /// The connection's `Origin` header, `nil` when it sent none.
    let origin: String?
    /// `[web] auth_timeout_ms` when the connection was made.
    let timeout: Duration

    /// Answers one line of a connection that has not authenticated; `channel` is what a reload
    /// closes should it revoke the token.
    func step(_ line: ByteBuffer, channel: any Channel) -> Step {
        let bytes = Data(line.readableBytesView)
        guard bytes.contains(where: { !MethodDispatcher.isJSONWhitespace($0) }) else { return .silent }
        let envelope: JSONRPCEnvelope
        switch JSONRPCEnvelope.decodeRequestLine(bytes) {
        case .success(let decoded): envelope = decoded
        case .failure(let error): return .reply(Self.line(id: .null, error))
        }
        let method: String
        switch envelope.requestMethod() {
        case .success(let name): method = name
        case .failure(let error): return .reply(Self.line(id: envelope.id ?? .null, error))
        }
        let id = envelope.id ?? .null
        guard method == Self.method else {
            return envelope.id == nil ? .silent : .reply(Self.line(id: id, .unauthenticated(method: method)))
        }
        let params: AuthParams
        do {
            guard let given = try NDJSON.decode(JSONRPCRequest<AuthParams>.self, from: bytes).params else {
                return .reply(Self.line(id: id, .invalidParams(method: method, "missing parameter 'token'")))
            }
            params = given
        } catch {
            return .reply(Self.line(id: id, .invalidParams(method: method, "params must be {\"token\": \"...\"}, a string")))
        }
        switch sessions.authenticate(token: params.token, origin: origin, channel: channel) {
        case .admitted(let name, let roles, let end):
            let result = AuthResult(token: name, roles: roles.sorted().map(\.rawValue))
            return .admitted(
                reply: MethodDispatcher.encode(JSONRPCResponse(id: id, result: result)), peer: .web(token: name, origin: origin), roles: roles,
                end: end)
        case .refused(let error):
            return .refused(Self.line(id: id, error))
        }
    }

    private static func line(id: JSONRPCID, _ error: JSONRPCError) -> ByteBuffer {
        MethodDispatcher.encode(JSONRPCResponse<JSONRPCNoResult>(id: id, error: error))
    }
}
