public import WebSettings
public import Logging
import NIOCore
public import PassTapCore
import PassTapProtocol
import Synchronization

/// The `/rpc` WebSocket sessions: who may authenticate, with which roles, how many at once, and
/// what a reload does to them. The web listener hands it each upgraded connection
/// (``serve(_:origin:dispatcher:)``, with the ``SocketServer``'s dispatcher); the connection then
/// runs the socket's own ``ClientConnection``, so methods, errors, events, replay,
/// `events.dropped`, the line limit and the idle timeout are the socket's.
///
/// Its rules (see `docs/web.md`):
/// - a client proves it holds a token's secret without sending it, after passtapd has proved it
///   holds it too (``WebAuthentication``, ``WebAuthProof``); proofs are compared in constant time;
/// - a present `Origin` must be in the token's `origins` or be one of the listener's own origins
///   (``listenerOrigins(of:port:)``); an absent one is accepted only by a token whose `origins`
///   is empty (a program, not a browser); `null` never matches;
/// - a token holds at most `[web] max_clients_per_token` authenticated connections, and all
///   tokens together `[web] max_clients` (those that have not authenticated have a pool of
///   their own in the web listener, and never take these places);
/// - failed attempts are counted per Origin under a global cap (``AuthFailureLimiter``); a
///   correct token from an allowed Origin never waits for the limiter;
/// - a reload that removes a token, or changes its secret, roles or origins, closes its
///   connections.
///
/// Settings are read from the daemon's ``LiveConfiguration`` at each use (`[web]` tokens and
/// limits are reloadable).
public final class WebSessions: ConfigurationObserver {
    let live: LiveConfiguration
    private let logger: Logger
    private let observer: SocketServerObserver
    private let clock: DaemonClock
    private let state = Mutex(State())
    private let failures = Mutex(AuthFailureLimiter())
    /// When an old `auth` was last logged.
    private let outdatedLogged = Mutex<ContinuousClock.Instant?>(nil)

    /// The authenticated connections, and the listener's own origins.
    private struct State {
        struct Client {
            let token: Configuration.WebToken
            let channel: any Channel
        }
        var clients: [UInt64: Client] = [:]
        var nextID: UInt64 = 0
        var listenerOrigins: Set<String> = []
        /// Told of each connection that authenticates (the web listener's pool of connections
        /// that have not: `UnauthenticatedConnections`).
        var authenticated: (@Sendable (any Channel) -> Void)?

        func count(of token: String) -> Int { clients.values.count { $0.token.name == token } }
    }

    /// What an `auth.prove` comes to.
    enum Decision {
        /// The token `name` with `roles`; `end` releases its slot when the connection ends.
        case admitted(name: String, roles: Set<AccessRole>, end: @Sendable () -> Void)
        /// The error to answer before closing.
        case refused(JSONRPCError)
    }

    /// Sessions with `live`'s `[web]` settings.
    /// - Parameters:
    ///   - observer: told of authenticated clients and failed attempts (the metrics recorder).
    ///   - clock: the clock the failure limiter counts minutes on (its monotonic time).
    public init(
        live: LiveConfiguration, logger: Logger, observer: SocketServerObserver = .none, clock: DaemonClock = .system
    ) {
        self.live = live
        self.logger = logger
        self.observer = observer
        self.clock = clock
    }

    /// How many `/rpc` connections are authenticated now (`status`: `web_clients`).
    public var connectedClients: Int { state.withLock { $0.clients.count } }

    /// The origins of a listener on `address`, bound to `port`: `http://127.0.0.1:PORT`,
    /// `http://localhost:PORT` and `http://[::1]:PORT`. The listener holds both loopback
    /// addresses of its port (`ListenerSockets.holdingBothLoopbacks`), so each names it.
    public static func listenerOrigins(of address: ListenAddress, port: Int) -> Set<String> {
        ["http://127.0.0.1:\(port)", "http://localhost:\(port)", "http://[::1]:\(port)"]
    }

    /// Tells the sessions the listener's own origins, allowed for every token (the dashboard).
    public func setListenerOrigins(_ origins: Set<String>) {
        state.withLock { $0.listenerOrigins = origins }
    }

    /// Has `observer` told of each connection that authenticates, once it is registered.
    public func setAuthenticatedObserver(_ observer: @escaping @Sendable (any Channel) -> Void) {
        state.withLock { $0.authenticated = observer }
    }

    /// Whether the handshake may go on: no `Origin`, one of the listener's own origins, or one
    /// some configured token lists. (At `auth.prove`, the Origin must suit that token.)
    public func admitsHandshake(origin: String?) -> Bool {
        guard let origin = origin?.lowercased() else { return true }
        guard origin != "null" else { return false }
        let own = state.withLock { $0.listenerOrigins }
        return own.contains(origin) || live.current.web.tokens.contains { $0.origins.contains(origin) }
    }

    /// Serves one upgraded `/rpc` connection until it ends: the handshake first (within
    /// `[web] auth_timeout_ms`), then the socket's methods, answered by `dispatcher`
    /// (``SocketServer/dispatcher``).
    /// - Parameter origin: its `Origin` header; `nil` when it sent none.
    package func serve(_ accepted: AcceptedClient, origin: String?, dispatcher: MethodDispatcher) async {
        let web = live.current.web
        var logger = self.logger
        logger[metadataKey: "peer.origin"] = "\(origin ?? "none")"
        logger.debug("web client connected")
        await ClientConnection(
            channel: accepted.channel, writer: accepted.writer, dispatcher: dispatcher,
            admission: .authenticating(
                WebAuthentication(sessions: self, origin: origin?.lowercased(), timeout: .milliseconds(web.authTimeoutMilliseconds))),
            idleTimeout: .milliseconds(web.idleTimeoutMilliseconds), logger: logger
        ).run()
        logger.debug("web client disconnected")
    }

    /// passtapd's proof for an `auth.hello` (``WebAuthProof/Side/server``): made with the secret
    /// of the token `proofs.name` names, or, when no token has that name, with a random key, so
    /// the answer looks the same and does not tell which names exist.
    func serverProof(_ proofs: WebAuthProof) -> [UInt8] {
        let token = live.current.web.tokens.first { $0.name == proofs.name }
        return proofs.proof(.server, secret: token?.secret.bytes ?? WebAuthProof.makeNonce())
    }

    /// Judges an `auth.prove`: `clientProof` over `proofs` (the nonces of this connection's
    /// `auth.hello`) from `origin`; registers `channel` under the token on success (for
    /// ``configurationChanged(from:to:)`` and `max_clients_per_token`).
    func authenticate(_ proofs: WebAuthProof, clientProof: [UInt8], origin: String?, channel: any Channel) -> Decision {
        // The proof check, the slot and the registration happen under the lock a reload's scan
        // holds after the reload is in force: a reload either finds this connection registered
        // or is in force before its token is read. Never a connection with a revoked token.
        let (admitted, web, authenticated) = state.withLock {
            state -> (Result<(Configuration.WebToken, UInt64), JSONRPCError>?, Configuration.Web, (@Sendable (any Channel) -> Void)?) in
            let web = live.current.web
            guard let token = web.tokens.first(where: { $0.name == proofs.name }),
                proofs.verify(clientProof, .client, secret: token.secret.bytes),
                Self.allows(origin, for: token, listenerOrigins: state.listenerOrigins)
            else { return (nil, web, nil) }
            guard state.count(of: token.name) < web.maxClientsPerToken else {
                return (.failure(.tooManyClients(token: token.name, limit: web.maxClientsPerToken)), web, nil)
            }
            // `max_clients` is what the listener was bound with (restart-only).
            guard state.clients.count < live.bound.web.maxClients else {
                return (.failure(.tooManyWebClients(limit: live.bound.web.maxClients)), web, nil)
            }
            let id = state.nextID
            state.nextID += 1
            state.clients[id] = State.Client(token: token, channel: channel)
            return (.success((token, id)), web, state.authenticated)
        }
        var logger = self.logger
        logger[metadataKey: "peer.origin"] = "\(origin ?? "none")"
        switch admitted {
        case .success(let (token, id)):
            logger.info(
                "web client authenticated", metadata: ["peer.token": "\(token.name)", "peer.roles": "\(token.roles.subtracting([.transmit]).sorted().map(\.rawValue).joined(separator: ","))"])
            observer.webClientsChanged(1)
            authenticated?(channel)
            // `transmit` is never a web role: the config loader refuses it, and it is dropped here too.
            return .admitted(name: token.name, roles: token.roles.subtracting([.transmit])) { [self] in
                state.withLock { $0.clients[id] = nil }
                observer.webClientsChanged(-1)
            }
        case .failure(let error):
            logger.info(
                "refusing a web client over its token's limit or the authenticated clients' limit",
                metadata: ["web.max_clients_per_token": "\(web.maxClientsPerToken)", "web.max_clients": "\(live.bound.web.maxClients)"])
            return .refused(error)
        case nil:
            return .refused(recordFailure(origin: origin))
        }
    }

    /// Counts one failed handshake from `origin` (a wrong name or proof, an Origin the token does
    /// not list, a handshake out of order) and returns the error to answer: `auth_failed`, or
    /// `auth_rate_limited` once the Origin (or every Origin) is over its limit per minute.
    func recordFailure(origin: String?) -> JSONRPCError {
        let web = live.current.web
        let verdict = failures.withLock {
            $0.recordFailure(origin: origin ?? "no Origin", at: clock.now, perOrigin: web.authFailuresPerOrigin, total: web.authFailuresTotal)
        }
        let error: JSONRPCError = verdict.retryAfter.map { .authRateLimited(retryAfterMilliseconds: $0.retryAfterMilliseconds) } ?? .authFailed
        observer.authFailed(error.code.reason)
        if verdict.logs {
            var logger = self.logger
            logger[metadataKey: "peer.origin"] = "\(origin ?? "none")"
            logger.notice(
                verdict.retryAfter == nil ? "web client failed to authenticate" : "web clients from this Origin fail to authenticate too often; further failures are logged once a minute",
                metadata: ["error": "\(error.code.reason)"])
        }
        return error
    }

    /// Logs a client that sent the old one-message `auth` (answered `auth_outdated`): a page
    /// integrated before 0.2.0 that must move to the handshake. Not a failed attempt: it says
    /// which client is out of date, and the secret it sent is never logged.
    func noteOutdatedClient(origin: String?) {
        observer.authFailed(JSONRPCErrorCode.authOutdated.reason)
        // Once a minute at most: an old page reconnects again and again.
        let at = clock.now
        let logs = outdatedLogged.withLock { last in
            guard last.map({ at - $0 >= .seconds(60) }) ?? true else { return false }
            last = at
            return true
        }
        guard logs else { return }
        var logger = self.logger
        logger[metadataKey: "peer.origin"] = "\(origin ?? "none")"
        logger.notice(
            "a web client sent the old auth, which carries the token itself: it needs the handshake (auth.hello, auth.prove; /usr/share/passtap/passtap.js); logged once a minute")
    }

    /// Whether `token` may be used from `origin` (lower-cased; `nil`: none sent).
    static func allows(_ origin: String?, for token: Configuration.WebToken, listenerOrigins: Set<String>) -> Bool {
        guard let origin else { return token.origins.isEmpty }
        guard origin != "null" else { return false }
        return listenerOrigins.contains(origin) || token.origins.contains(origin)
    }

    /// A reload is in force: the connections of a token it removed, or whose secret, roles or
    /// origins it changed, are closed (they may reconnect and authenticate anew); the others go
    /// on. The limits apply to what comes next.
    public func configurationChanged(from old: Configuration, to new: Configuration) {
        // Forgotten at once (not when each connection has wound down), so `status` and
        // `max_clients_per_token` no longer count them once the reload is in force.
        let closed = state.withLock { state -> [(String, any Channel)] in
            let tokens = Dictionary(new.web.tokens.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            let revoked = state.clients.filter { _, client in
                guard let now = tokens[client.token.name] else { return true }
                return now.secret != client.token.secret || now.roles != client.token.roles || now.origins != client.token.origins
            }
            for id in revoked.keys { state.clients[id] = nil }
            return revoked.values.map { ($0.token.name, $0.channel) }
        }
        for (token, channel) in closed {
            logger.notice("closing a web client whose token the reload revoked or changed; it may reconnect", metadata: ["peer.token": "\(token)"])
            channel.close(promise: nil)
        }
    }
}
