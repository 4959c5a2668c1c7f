/// The errors of `/rpc`'s handshake (`auth.hello`, `auth.prove`; see `docs/web.md`), with their
/// messages. None names a secret, and a failure never says whether the name, the proof or the
/// Origin was wrong.
extension JSONRPCError {
    /// -32017: a method other than the handshake's before the handshake succeeded.
    public static func unauthenticated(method: String) -> JSONRPCError {
        JSONRPCError(
            .unauthenticated,
            "\(method) needs an authenticated connection: complete the handshake first (auth.hello, then auth.prove; see docs/web.md, or use /usr/share/passtap/passtap.js)")
    }

    /// -32018: the proof is wrong (an unknown name, or a secret that is not the token's), the
    /// token does not allow the connection's Origin, or the handshake came out of order.
    public static let authFailed = JSONRPCError(
        .authFailed,
        "authentication failed: the token name or its proof is wrong, or the token is not allowed from this Origin (see [[web.tokens]] in passtapd.toml); the connection is closed")

    /// -32023: the old one-message `auth`, which sent the token's secret itself.
    public static let authOutdated = JSONRPCError(
        .authOutdated,
        "auth sent the token itself and is gone since passtapd 0.2.0: use the handshake (auth.hello, then auth.prove), which never sends the token; vendor /usr/share/passtap/passtap.js or see docs/web.md; the connection is closed")

    /// -32024: `auth.hello` named a protocol version passtapd does not speak.
    public static func protocolUnsupported(asked: Int) -> JSONRPCError {
        var error = JSONRPCError(
            .protocolUnsupported,
            "this passtapd speaks protocol \(PassTapProtocolVersion), not \(asked) (auth.hello's protocol): use a client for this version (/usr/share/passtap/passtap.js); the connection is closed")
        error.data?.supported = [PassTapProtocolVersion]
        return error
    }

    /// -32019: the failure is over its Origin's (or every Origin's) limit per minute.
    public static func authRateLimited(retryAfterMilliseconds: Int) -> JSONRPCError {
        var error = JSONRPCError(
            .authRateLimited,
            "too many failed auth attempts from this Origin in the last minute ([web] auth_failures_per_origin, auth_failures_total): retry in \(retryAfterMilliseconds) ms with the right token; the connection is closed")
        error.data?.retryAfterMilliseconds = retryAfterMilliseconds
        return error
    }

    /// -32020: no completed handshake within `[web] auth_timeout_ms`.
    public static func authTimeout(milliseconds: Int) -> JSONRPCError {
        JSONRPCError(
            .authTimeout,
            "no completed handshake within \(milliseconds) ms of the connection ([web] auth_timeout_ms): the connection is closed; reconnect and send auth.hello first")
    }

    /// -32600: a handshake method on a connection that already authenticated.
    public static let alreadyAuthenticated = JSONRPCError(
        .invalidRequest, "this connection is already authenticated: a token holds for the whole connection; open another one for another token")

    /// -32006: `[web] max_clients` authenticated connections are already open.
    public static func tooManyWebClients(limit: Int) -> JSONRPCError {
        JSONRPCError(
            .tooManyClients,
            "passtapd already serves \(limit) authenticated web clients ([web] max_clients): close another one, or raise the limit and restart passtapd (a reload keeps it)")
    }

    /// -32006: one token's connection limit is reached.
    public static func tooManyClients(token: String, limit: Int) -> JSONRPCError {
        JSONRPCError(
            .tooManyClients,
            "token \(token) already has \(limit) connections to passtapd ([web] max_clients_per_token): close one of them or raise the limit")
    }
}
