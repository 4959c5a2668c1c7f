import ForwardSettings
import WebSettings
import Foundation
import Logging
import NIOCore
import NIOPosix
import PassTapCore
import PassTapProtocol
import PassTapTestNetwork
import Synchronization
import Testing

@testable import PassTapServer

/// Runs ``WebSessions`` beside a ``ServerHarness``'s server, over a stand-in for the WebSocket:
/// one Unix listener per Origin, framed in lines as the socket is (passtapd's WebSocket codec
/// turns each text message into the same one-request buffer), whose connections are served as
/// upgraded `/rpc` connections carrying that Origin. So ``LineClient`` talks to `/rpc` sessions.
struct WebHarness {
    let server: ServerHarness
    let sessions: WebSessions
    private let paths: [String: String]

    /// The listener's own origin in these tests (allowed for every token).
    static let ownOrigin = "http://127.0.0.1:8941"
    static let posOrigin = "https://pos.example.com"
    static let evilOrigin = "https://evil.example"

    /// A token with `secret`, `roles` and `origins`.
    static func token(_ name: String, secret: String, roles: Set<AccessRole>, origins: [String] = [posOrigin]) -> Configuration.WebToken {
        Configuration.WebToken(name: name, tokenFile: "/etc/passtap/web/\(name).token", secret: WebTokenSecret(secret), roles: roles, origins: origins)
    }

    /// The old one-message `auth` request, carrying `secret` (answered `auth_outdated` now).
    static func outdatedAuth(_ secret: String, id: Int = 1) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"auth","params":{"token":"\#(secret)"}}"#
    }

    /// What a handshake came to: whether passtapd's proof checked out with the secret the client
    /// holds, and `auth.prove`'s answer (or `auth.hello`'s error when it failed there).
    struct Handshake {
        var serverProved: Bool
        var outcome: Result<AuthResult, JSONRPCError>
    }

    /// Runs the handshake as a client holding `secret` for the token `name`. Unlike a real client
    /// (passtap.js), it sends its proof even when passtapd's did not check out, so tests can see
    /// how passtapd judges a wrong secret.
    static func handshake(_ client: LineClient, name: String, secret: String, id: Int = 1) async throws -> Handshake {
        let clientNonce = WebAuthProof.makeNonce()
        let hello = try await client.call(
            String(decoding: try JSONEncoder().encode(JSONRPCRequest(id: .number(Int64(id)), method: "auth.hello", params: AuthHelloParams(token: name, nonce: WebAuthProof.hex(clientNonce)))), as: UTF8.self),
            expecting: AuthHelloResult.self)
        let answer: AuthHelloResult
        switch hello.outcome {
        case .failure(let error): return Handshake(serverProved: false, outcome: .failure(error))
        case .success(let result): answer = result
        }
        let serverNonce = try #require(WebAuthProof.bytes(hex: answer.nonce))
        let proofs = WebAuthProof(name: name, clientNonce: clientNonce, serverNonce: serverNonce)
        let serverProved = proofs.verify(try #require(WebAuthProof.bytes(hex: answer.proof)), .server, secret: Array(secret.utf8))
        let prove = try await client.call(
            String(decoding: try JSONEncoder().encode(JSONRPCRequest(id: .number(Int64(id + 1)), method: "auth.prove", params: AuthProveParams(proof: WebAuthProof.hex(proofs.proof(.client, secret: Array(secret.utf8)))))), as: UTF8.self),
            expecting: AuthResult.self)
        return Handshake(serverProved: serverProved, outcome: prove.outcome)
    }

    /// Where a client connects to be a `/rpc` client sending `origin` (`nil`: none).
    func path(origin: String?) -> String {
        paths[origin ?? ""]!
    }

    /// What a reload does: puts `new` in force, then tells the socket server and the sessions.
    func apply(_ new: Configuration) {
        let old = server.server.live.replace(with: new)
        server.server.configurationChanged(from: old, to: new)
        sessions.configurationChanged(from: old, to: new)
    }

    /// Starts a server whose configuration `configure` sets (`[web]` tokens and limits), with one
    /// stand-in listener per entry of `origins`, runs `body`, then stops everything.
    static func with(
        origins: [String?] = [posOrigin],
        configure: (inout Configuration) -> Void,
        logger: Logger = Logger(label: "passtap.test.web"),
        observer: SocketServerObserver = .none,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        _ body: (WebHarness) async throws -> Void
    ) async throws {
        // `status` asks the sessions, which need the server's configuration: made right after it.
        let made = Mutex<WebSessions?>(nil)
        let health = HealthSources(webClients: { made.withLock { $0?.connectedClients ?? 0 } })
        try await ServerHarness.with(configure: configure, logger: logger, observer: observer, health: health) { server in
            let sessions = WebSessions(live: server.server.live, logger: logger, observer: observer, clock: DaemonClock(now: now))
            made.withLock { $0 = sessions }
            sessions.setListenerOrigins([ownOrigin])
            let dispatcher = server.server.dispatcher
            var listeners: [(String?, NIOAsyncChannel<AcceptedClient, Never>)] = []
            var paths: [String: String] = [:]
            for (index, origin) in origins.enumerated() {
                let path = server.directory + "/web-\(index).sock"
                let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .childChannelOption(.allowRemoteHalfClosure, value: true)
                    .bind(unixDomainSocketPath: path) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ByteToMessageHandler(NDJSONLineDecoder(), maximumBufferSize: NDJSON.maximumLineBytes))
                            return try AcceptedClient.wrap(channel, dispatcher: dispatcher)
                        }
                    }
                listeners.append((origin, listener))
                paths[origin ?? ""] = path
            }
            let harness = WebHarness(server: server, sessions: sessions, paths: paths)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (origin, listener) in listeners {
                    group.addTask {
                        try await withThrowingDiscardingTaskGroup { clients in
                            try await listener.executeThenClose { inbound in
                                for try await client in inbound {
                                    clients.addTask { await sessions.serve(client, origin: origin, dispatcher: dispatcher) }
                                }
                            }
                            clients.cancelAll()
                        }
                    }
                }
                do {
                    try await body(harness)
                } catch {
                    group.cancelAll()
                    throw error
                }
                group.cancelAll()
                try? await group.waitForAll()
            }
        }
    }
}
