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
/// - a token is compared, in constant time, with every configured token;
/// - a present `Origin` must be in the token's `origins` or be one of the listener's own origins
///   (``listenerOrigins(of:port:)``); an absent one is accepted only by a token whose `origins`
///   is empty (a program, not a browser); `null` never matches;
/// - a token holds at most `[web] max_clients_per_token` authenticated connections;
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
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())
    private let failures = Mutex(AuthFailureLimiter())

    /// The authenticated connections, and the listener's own origins.
    private struct State {
        struct Client {
            let token: Configuration.WebToken
            let channel: any Channel
        }
        var clients: [UInt64: Client] = [:]
        var nextID: UInt64 = 0
        var listenerOrigins: Set<String> = []

        func count(of token: String) -> Int { clients.values.count { $0.token.name == token } }
    }

    /// What an `auth` comes to.
    enum Decision {
        /// The token `name` with `roles`; `end` releases its slot when the connection ends.
        case admitted(name: String, roles: Set<AccessRole>, end: @Sendable () -> Void)
        /// The error to answer before closing.
        case refused(JSONRPCError)
    }

    /// Sessions with `live`'s `[web]` settings.
    /// - Parameters:
    ///   - observer: told of authenticated clients and failed attempts (the metrics recorder).
    ///   - now: the clock the failure limiter counts minutes on.
    public init(
        live: LiveConfiguration, logger: Logger, observer: SocketServerObserver = .none,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.live = live
        self.logger = logger
        self.observer = observer
        self.now = now
    }

    /// How many `/rpc` connections are authenticated now (`status`: `web_clients`).
    public var connectedClients: Int { state.withLock { $0.clients.count } }

    /// The origins of a listener on `address`, bound to `port`: `http://127.0.0.1:PORT` and
    /// `http://localhost:PORT`, and `http://[::1]:PORT` when it listens on `::1` or `localhost`.
    public static func listenerOrigins(of address: ListenAddress, port: Int) -> Set<String> {
        var origins: Set<String> = ["http://127.0.0.1:\(port)", "http://localhost:\(port)"]
        if address.host == "::1" || address.host == "localhost" { origins.insert("http://[::1]:\(port)") }
        return origins
    }

    /// Tells the sessions the listener's own origins, allowed for every token (the dashboard).
    public func setListenerOrigins(_ origins: Set<String>) {
        state.withLock { $0.listenerOrigins = origins }
    }

    /// Whether the handshake may go on: no `Origin`, one of the listener's own origins, or one
    /// some configured token lists. (After `auth`, the Origin must suit that token.)
    public func admitsHandshake(origin: String?) -> Bool {
        guard let origin = origin?.lowercased() else { return true }
        guard origin != "null" else { return false }
        let own = state.withLock { $0.listenerOrigins }
        return own.contains(origin) || live.current.web.tokens.contains { $0.origins.contains(origin) }
    }

    /// Serves one upgraded `/rpc` connection until it ends: `auth` first (within
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

    /// Judges an `auth` with secret `token` from `origin`; registers `channel` under the token on
    /// success (for ``configurationChanged(from:to:)`` and `max_clients_per_token`).
    func authenticate(token candidate: String, origin: String?, channel: any Channel) -> Decision {
        let secret = Array(candidate.utf8)
        // The token check, the slot and the registration happen under the lock a reload's scan
        // holds after the reload is in force: a reload either finds this connection registered
        // or is in force before its token is read. Never a connection with a revoked token.
        let (admitted, web) = state.withLock { state -> (Result<(Configuration.WebToken, UInt64), JSONRPCError>?, Configuration.Web) in
            let web = live.current.web
            // Every token is compared, to the end, whichever matches.
            var matched: Configuration.WebToken?
            for token in web.tokens where token.secret.matches(secret) && matched == nil { matched = token }
            guard let token = matched, Self.allows(origin, for: token, listenerOrigins: state.listenerOrigins) else { return (nil, web) }
            guard state.count(of: token.name) < web.maxClientsPerToken else {
                return (.failure(.tooManyClients(token: token.name, limit: web.maxClientsPerToken)), web)
            }
            let id = state.nextID
            state.nextID += 1
            state.clients[id] = State.Client(token: token, channel: channel)
            return (.success((token, id)), web)
        }
        var logger = self.logger
        logger[metadataKey: "peer.origin"] = "\(origin ?? "none")"
        switch admitted {
        case .success(let (token, id)):
            logger.info(
                "web client authenticated", metadata: ["peer.token": "\(token.name)", "peer.roles": "\(token.roles.subtracting([.transmit]).sorted().map(\.rawValue).joined(separator: ","))"])
            observer.webClientsChanged(1)
            // `transmit` is never a web role: the config loader refuses it, and it is dropped here too.
            return .admitted(name: token.name, roles: token.roles.subtracting([.transmit])) { [self] in
                state.withLock { $0.clients[id] = nil }
                observer.webClientsChanged(-1)
            }
        case .failure(let error):
            logger.info("refusing a web client over its token's limit", metadata: ["web.max_clients_per_token": "\(web.maxClientsPerToken)"])
            return .refused(error)
        case nil:
            let verdict = failures.withLock {
                $0.recordFailure(origin: origin ?? "no Origin", at: now(), perOrigin: web.authFailuresPerOrigin, total: web.authFailuresTotal)
            }
            let error: JSONRPCError = verdict.retryAfter.map { .authRateLimited(retryAfterMilliseconds: Self.milliseconds($0)) } ?? .authFailed
            observer.authFailed(error.code.reason)
            if verdict.logs {
                logger.notice(
                    verdict.retryAfter == nil ? "web client failed to authenticate" : "web clients from this Origin fail to authenticate too often; further failures are logged once a minute",
                    metadata: ["error": "\(error.code.reason)"])
            }
            return .refused(error)
        }
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

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
