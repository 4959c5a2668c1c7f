public import PassTapCore

extension Configuration {
    /// `[web]`: the browser listener (`GET /` dashboard, `GET /rpc` WebSocket JSON-RPC). Off unless
    /// `listen` is set. `listen` and `max_clients` are restart-only; the tokens and the other limits
    /// are reloadable.
    public struct Web: FeatureSettings {
        /// `listen`: a loopback address (`127.0.0.1:8941`, `[::1]:8941`, `localhost:8941`); `nil`
        /// (the default) serves nothing. Any other address is refused at load.
        public var listen: ListenAddress? = nil
        /// `[[web.tokens]]`: who may use `/rpc`, each with its secret, roles and origins.
        public var tokens: [WebToken] = []
        /// `max_clients`: authenticated `/rpc` connections held at once; one more handshake is
        /// refused (`too_many_clients`). As many again may be held that have not authenticated
        /// (page requests, handshakes), in a pool of their own. Restart-only (both are part of the
        /// file-descriptor budget).
        public var maxClients: Int = 32
        /// `max_pending_per_uid`: connections one user may hold that have not authenticated (page
        /// requests, `/rpc` before its handshake completes); one more is closed as soon as it is
        /// accepted. The user is the owner of the peer's socket, as the kernel reports it.
        public var maxPendingPerUID: Int = 8
        /// `max_clients_per_token`: authenticated `/rpc` connections one token may hold at once.
        public var maxClientsPerToken: Int = 8
        /// `vas_reads_per_token`: `vas.read` calls one token may have waiting on one reader.
        public var vasReadsPerToken: Int = 1
        /// `idle_timeout_ms`: an authenticated connection neither subscribed nor waiting for an
        /// answer is closed after this long without a request (as `[socket] idle_timeout_ms`).
        public var idleTimeoutMilliseconds: Int = 60_000
        /// `auth_timeout_ms`: a `/rpc` connection that has not authenticated this long after the
        /// upgrade is closed.
        public var authTimeoutMilliseconds: Int = 5_000
        /// `auth_failures_per_origin`: failed `auth` attempts one Origin may make per minute
        /// before its further failures are answered `auth_rate_limited`.
        public var authFailuresPerOrigin: Int = 10
        /// `auth_failures_total`: failed `auth` attempts of all Origins together per minute (the
        /// global cap over the per-Origin limits).
        public var authFailuresTotal: Int = 100

        /// The defaults of the shipped config (off).
        public init() {}
    }

    /// One `[[web.tokens]]` entry: a named secret, the socket roles it grants (never `transmit`)
    /// and the browser origins it may be used from.
    public struct WebToken: Sendable, Hashable {
        /// `name`: what logs, audit lines, `status` and the metrics call it; unique.
        public var name: String
        /// `token_file`: where the secret was read from, a relative path resolved from the config
        /// file's folder (checked as merchant key files are; ``WebTokenFile``). Read again on
        /// every reload.
        public var tokenFile: String
        /// The secret read from `token_file`.
        public var secret: WebTokenSecret
        /// `roles`: `observe` and/or `read`, at least one (`transmit` is refused at load).
        public var roles: Set<AccessRole>
        /// `origins`: exact `scheme://host[:port]` values, lower-cased, without a trailing slash.
        /// Empty: the token accepts only connections that send no `Origin` (non-browser programs).
        public var origins: [String]

        /// An entry.
        public init(name: String, tokenFile: String, secret: WebTokenSecret, roles: Set<AccessRole>, origins: [String]) {
            self.name = name
            self.tokenFile = tokenFile
            self.secret = secret
            self.roles = roles
            self.origins = origins
        }
    }
}

/// A web token's secret: the bytes of its token file's one line. Its description never shows it;
/// it never crosses the wire: it is the key of the `/rpc` handshake's proofs (`WebAuthProof`).
public struct WebTokenSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret's bytes: the handshake's HMAC key (`WebAuthProof`). Never logged or sent.
    package let bytes: [UInt8]

    /// The secret `text` (a token file's line, without its newline).
    public init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// `<secret>`: never the bytes.
    public var description: String { "<secret>" }
    public var debugDescription: String { "<secret>" }
}

extension Configuration {
    /// `[web]`, kept in ``Configuration/features`` (its defaults when the file has no such table).
    public var web: Web {
        get { self[Web.self] }
        set { self[Web.self] = newValue }
    }
}
