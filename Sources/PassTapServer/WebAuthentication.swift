import WebSettings
import Foundation
import NIOCore
import PassTapCore
import PassTapProtocol

/// The handshake of one `/rpc` connection: what its lines get until it authenticates.
///
/// The token's secret never crosses the wire, and passtapd proves first (`docs/web.md`, "The
/// handshake"; ``WebAuthProof``):
/// 1. `auth.hello` `{"protocol": 1, "token": NAME, "nonce": HEX}`: the client names a token and
///    sends its nonce. passtapd answers `{"protocol": 1, "nonce": HEX, "proof": HEX}`, its nonce and
///    its proof over both. For a name no token has, the proof is made with a random key, so the
///    answer does not tell which names exist.
/// 2. `auth.prove` `{"proof": HEX}`: the client's proof over the same nonces. passtapd checks it
///    against the token's secret and the connection's Origin, and answers
///    `{"token": NAME, "roles": [...]}`, or refuses (`auth_failed`, `auth_rate_limited`, a token
///    at `max_clients_per_token`) and closes.
///
/// Before that, every other method is answered `unauthenticated` (-32017) and the connection
/// stays; a line that is not a request gets the socket's parse or envelope error. The old
/// one-message `auth`, which carried the secret, is answered `auth_outdated` and closed; an
/// `auth.hello` for another protocol version `protocol_unsupported`.
struct WebAuthentication: Sendable {
    /// The old method's wire name, answered ``JSONRPCError/authOutdated``.
    static let outdatedMethod = "auth"
    /// The first step's wire name. Not an ``RPCMethod``: the Unix socket has no handshake.
    static let helloMethod = "auth.hello"
    /// The second step's wire name.
    static let proveMethod = "auth.prove"

    /// What a line before the end of the handshake comes to.
    enum Step {
        /// Nothing to send (a blank line, a client notification).
        case silent
        /// Send this and go on waiting for the handshake.
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
    /// The `auth.hello` this connection sent and answered: the proofs `auth.prove` is judged by.
    private var hello: WebAuthProof?

    /// The handshake of a connection from `origin` (lower-cased), to be done within `timeout`.
    init(sessions: WebSessions, origin: String?, timeout: Duration) {
        self.sessions = sessions
        self.origin = origin
        self.timeout = timeout
    }

    /// Answers one line of a connection that has not authenticated; `channel` is what a reload
    /// closes should it revoke the token.
    mutating func step(_ line: ByteBuffer, channel: any Channel) -> Step {
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
        switch method {
        case Self.outdatedMethod:
            sessions.noteOutdatedClient(origin: origin)
            return .refused(Self.line(id: id, .authOutdated))
        case Self.helloMethod:
            return answerHello(bytes, id: id, method: method)
        case Self.proveMethod:
            return answerProve(bytes, id: id, method: method, channel: channel)
        default:
            return envelope.id == nil ? .silent : .reply(Self.line(id: id, .unauthenticated(method: method)))
        }
    }

    /// `auth.hello`: passtapd's nonce and proof, once per connection.
    private mutating func answerHello(_ bytes: Data, id: JSONRPCID, method: String) -> Step {
        guard hello == nil else { return .refused(Self.line(id: id, sessions.recordFailure(origin: origin))) }
        let params: AuthHelloParams
        do {
            guard let given = try NDJSON.decode(JSONRPCRequest<AuthHelloParams>.self, from: bytes).params else {
                return .reply(Self.line(id: id, .invalidParams(method: method, "missing parameters 'protocol', 'token' and 'nonce'")))
            }
            params = given
        } catch {
            return .reply(
                Self.line(
                    id: id,
                    .invalidParams(
                        method: method, "params must be {\"protocol\": \(PassTapProtocolVersion), \"token\": \"NAME\", \"nonce\": \"64 hex digits\"}")))
        }
        guard params.protocol == PassTapProtocolVersion else {
            return .refused(Self.line(id: id, .protocolUnsupported(asked: params.protocol)))
        }
        guard let clientNonce = WebAuthProof.bytes(hex: params.nonce) else {
            return .reply(Self.line(id: id, .invalidParams(method: method, "nonce must be 32 random bytes as 64 hex digits")))
        }
        let proofs = WebAuthProof(name: params.token, clientNonce: clientNonce, serverNonce: WebAuthProof.makeNonce())
        hello = proofs
        let proof = sessions.serverProof(proofs)
        let result = AuthHelloResult(nonce: WebAuthProof.hex(proofs.serverNonce), proof: WebAuthProof.hex(proof))
        return .reply(MethodDispatcher.encode(JSONRPCResponse(id: id, result: result)))
    }

    /// `auth.prove`: the client's proof, judged against the token named in `auth.hello`.
    private mutating func answerProve(_ bytes: Data, id: JSONRPCID, method: String, channel: any Channel) -> Step {
        guard let proofs = hello else {
            // Out of order: there are no nonces to judge a proof by.
            return .refused(Self.line(id: id, sessions.recordFailure(origin: origin)))
        }
        let proof: [UInt8]
        do {
            guard let given = try NDJSON.decode(JSONRPCRequest<AuthProveParams>.self, from: bytes).params,
                let decoded = WebAuthProof.bytes(hex: given.proof)
            else {
                return .reply(Self.line(id: id, .invalidParams(method: method, "params must be {\"proof\": \"64 hex digits\"}")))
            }
            proof = decoded
        } catch {
            return .reply(Self.line(id: id, .invalidParams(method: method, "params must be {\"proof\": \"64 hex digits\"}")))
        }
        // One proof per hello: a failed one ends the connection anyway.
        hello = nil
        switch sessions.authenticate(proofs, clientProof: proof, origin: origin, channel: channel) {
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
