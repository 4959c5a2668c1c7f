import PostgresNIO
import PassTapProtocol

/// The error of a failed delivery, for `forward.status` and the log: its class, and its text:
/// what failed and, for the server's refusals, its message and SQLSTATE. Never the password,
/// never row data: of the server's fields only the message and code are used (its `detail` may
/// quote a row), and never the query.
enum PostgresFailure {
    /// The failure for `error` from postgres-nio, NIOSSL or the sink itself, `stage` saying what
    /// was being done (`"connecting"`, `"creating the table"`, `"inserting"`).
    static func failure(_ error: any Error, stage: String) -> ForwardFailure {
        var failure = describe(error)
        failure.text = "\(stage): " + failure.text
        return failure
    }

    private static func describe(_ error: any Error) -> ForwardFailure {
        if let error = error as? PSQLError { return describe(error) }
        if ForwardFailure.isTLS(error) { return ForwardFailure.tls(error, target: nil) }
        return ForwardFailure.transport(error, target: nil)
    }

    private static func describe(_ error: PSQLError) -> ForwardFailure {
        switch error.code {
        case .server:
            let message = error.serverInfo?[.message] ?? "an error without a message"
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let authentication = error.serverInfo?[.sqlState].map(isAuthenticationState) ?? false
            return authentication
                ? ForwardFailure(.auth, "authentication failed: " + message + state)
                : ForwardFailure(.serverError, "the server refused: " + message + state)
        case .sslUnsupported:
            return ForwardFailure(.tls, "the server does not accept TLS (set tls = \"disable\" only on a trusted network)")
        case .connectionError:
            guard let underlying = error.underlying else { return ForwardFailure(.other, "cannot connect") }
            if let refusal = underlying as? PostgresPasswordRefusal { return ForwardFailure(.auth, refusal.description) }
            if ForwardFailure.isTLS(underlying) { return ForwardFailure.tls(underlying, target: nil) }
            return ForwardFailure.transport(underlying, target: nil)
        case .serverClosedConnection:
            return ForwardFailure(.connectionClosed, "the server closed the connection")
        case .clientClosedConnection:
            return ForwardFailure(.connectionClosed, "the connection was closed (timed out or shut down)")
        case .uncleanShutdown:
            return ForwardFailure(.tls, "the connection ended uncleanly (TLS)")
        case .saslError, .unsupportedAuthMechanism, .authMechanismRequiresPassword:
            let underlying = error.underlying.map { ": \($0)" } ?? ""
            return ForwardFailure(.auth, "authentication failed (\(error.code))\(underlying)")
        default:
            return ForwardFailure(.other, "postgres-nio failed (\(error.code))")
        }
    }

    /// SQLSTATE class 28, invalid authorization specification: a wrong password, a role or
    /// address `pg_hba.conf` does not admit.
    private static func isAuthenticationState(_ state: String) -> Bool { state.hasPrefix("28") }
}
