/// The errors of `/rpc`'s `auth` step (see `docs/web.md`), with their messages. None names a
/// secret, and a failure never says whether the token or the Origin was wrong.
extension JSONRPCError {
    /// -32017: a method other than `auth` before `auth` succeeded.
    public static func unauthenticated(method: String) -> JSONRPCError {
        JSONRPCError(
            .unauthenticated,
            "\(method) needs an authenticated connection: send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"auth\",\"params\":{\"token\":\"...\"}} first")
    }

    /// -32018: no configured token matches, or the token does not allow the connection's Origin.
    public static let authFailed = JSONRPCError(
        .authFailed,
        "authentication failed: the token is unknown or not allowed from this Origin (see [[web.tokens]] in passtapd.toml); the connection is closed")

    /// -32019: the failure is over its Origin's (or every Origin's) limit per minute.
    public static func authRateLimited(retryAfterMilliseconds: Int) -> JSONRPCError {
        var error = JSONRPCError(
            .authRateLimited,
            "too many failed auth attempts from this Origin in the last minute ([web] auth_failures_per_origin, auth_failures_total): retry in \(retryAfterMilliseconds) ms with the right token; the connection is closed")
        error.data?.retryAfterMilliseconds = retryAfterMilliseconds
        return error
    }

    /// -32020: no successful `auth` within `[web] auth_timeout_ms`.
    public static func authTimeout(milliseconds: Int) -> JSONRPCError {
        JSONRPCError(
            .authTimeout,
            "no auth within \(milliseconds) ms of the connection ([web] auth_timeout_ms): the connection is closed; reconnect and send auth first")
    }

    /// -32600: `auth` on a connection that already authenticated.
    public static let alreadyAuthenticated = JSONRPCError(
        .invalidRequest, "this connection is already authenticated: a token holds for the whole connection; open another one for another token")

    /// -32006: one token's connection limit is reached.
    public static func tooManyClients(token: String, limit: Int) -> JSONRPCError {
        JSONRPCError(
            .tooManyClients,
            "token \(token) already has \(limit) connections to passtapd ([web] max_clients_per_token): close one of them or raise the limit")
    }
}
