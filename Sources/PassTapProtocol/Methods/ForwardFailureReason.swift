/// What kind of failure a sink's last delivery error was: `forward.status`'s
/// `sinks[].last_error_reason`, which every `observe` peer sees. The error's text
/// (`last_error`), which may name database hosts, roles and what the server said, needs
/// `manage`.
public enum ForwardFailureReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing accepts connections at the sink's host and port (`ECONNREFUSED`).
    case connectionRefused = "connection_refused"
    /// The host cannot be found or reached (name resolution, no route, a missing socket file).
    case unreachable
    /// No answer within the sink's timeout.
    case timeout
    /// The other end closed or reset the connection without an answer.
    case connectionClosed = "connection_closed"
    /// TLS failed: the certificate was not trusted or did not name the host, the server does not
    /// take TLS, or `ca_file` cannot be read.
    case tls
    /// The server refused the login (a wrong password, a role or address it does not admit), or
    /// asked for a password passtapd will not send it.
    case auth
    /// The webhook receiver answered with a status other than 2xx.
    case httpStatus = "http_status"
    /// The PostgreSQL server refused a statement (the table, a permission).
    case serverError = "server_error"
    /// The outbox on the till cannot be opened or read.
    case outboxUnavailable = "outbox_unavailable"
    /// Anything else (the sink was shut down, an unexpected error).
    case other
}
