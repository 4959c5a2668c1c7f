/// The errors of the protocol layer itself, with their messages.
extension JSONRPCError {
    /// -32700: the line is not JSON.
    public static func parseError(_ detail: String) -> JSONRPCError {
        JSONRPCError(.parseError, "the line is not valid JSON (\(detail)): send one JSON object per line")
    }

    /// -32700: the input ended after bytes that no newline closed.
    public static let unterminatedLine = JSONRPCError(
        .parseError, "the input ended inside a line: end every request with a newline (\\n); this one was not read")

    /// -32600: JSON, but not a request object.
    public static func invalidRequest(_ detail: String) -> JSONRPCError {
        JSONRPCError(
            .invalidRequest,
            "not a JSON-RPC 2.0 request: \(detail); send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}")
    }

    /// -32601: the method does not exist.
    public static func methodNotFound(_ method: String) -> JSONRPCError {
        let known = RPCMethod.allCases.map(\.rawValue).joined(separator: ", ")
        return JSONRPCError(.methodNotFound, "no method '\(method)': the methods are \(known)")
    }

    /// -32602: the params do not fit the method.
    public static func invalidParams(method: String, _ detail: String) -> JSONRPCError {
        JSONRPCError(.invalidParams, "bad params for \(method): \(detail)")
    }

    /// -32014: the peer lacks the role `role` that `method` needs.
    public static func forbidden(method: String, role: String) -> JSONRPCError {
        JSONRPCError(
            .forbidden,
            "\(method) needs the \(role) role, which this connection's user does not hold: see [access] in passtapd.toml")
    }

    /// -32014 for a peer that holds no role at all: it is closed after this.
    public static func noRole(uid: UInt32) -> JSONRPCError {
        JSONRPCError(
            .forbidden,
            "user \(uid) holds no role on passtapd's socket, so the connection is closed: see [access] in passtapd.toml")
    }

    /// -32015: the connection was idle too long and is closed; `setting` names the limit
    /// (`[socket] idle_timeout_ms`, or `[web] idle_timeout_ms` on `/rpc`).
    public static func idleTimeout(milliseconds: Int, setting: String = "[socket] idle_timeout_ms") -> JSONRPCError {
        JSONRPCError(
            .idleTimeout,
            "no request for \(milliseconds) ms while neither subscribed nor waiting for an answer (\(setting)): the connection is closed; reconnect to go on")
    }

    /// -32006: one user's connection limit is reached.
    public static func tooManyClients(uid: UInt32, limit: Int) -> JSONRPCError {
        JSONRPCError(
            .tooManyClients,
            "user \(uid) already has \(limit) connections to passtapd ([socket] max_clients_per_uid): close one of them or raise the limit")
    }

    /// -32006: the connection limit is reached.
    public static func tooManyClients(limit: Int) -> JSONRPCError {
        JSONRPCError(
            .tooManyClients,
            "passtapd already serves \(limit) clients ([socket] max_clients): close another client, or raise the limit and restart passtapd (a reload keeps it)")
    }

    /// -32007: a line exceeded the limit.
    public static func lineTooLong(limit: Int) -> JSONRPCError {
        JSONRPCError(
            .lineTooLong,
            "a line exceeded \(limit) bytes without a newline; the connection is closed: send one JSON object per line")
    }
}
