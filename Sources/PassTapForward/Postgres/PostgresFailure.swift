import NIOSSL
import PostgresNIO

/// The error text of a failed delivery, for `forward.status` and the log: what failed and, for
/// the server's refusals, its message and SQLSTATE. Never the password, never row data: of the
/// server's fields only the message and code are used (its `detail` may quote a row), and never
/// the query.
enum PostgresFailure {
    /// The text for `error` from postgres-nio, NIOSSL or the sink itself, `stage` saying what was
    /// being done (`"connecting"`, `"creating the table"`, `"inserting"`).
    static func text(_ error: any Error, stage: String) -> String {
        "\(stage): " + describe(error)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError { return describe(error) }
        if isTLS(error) { return tlsText(error) }
        return String(describing: error)
    }

    private static func describe(_ error: PSQLError) -> String {
        switch error.code {
        case .server:
            let message = error.serverInfo?[.message] ?? "an error without a message"
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let authentication = error.serverInfo?[.sqlState].map(isAuthenticationState) ?? false
            return (authentication ? "authentication failed: " : "the server refused: ") + message + state
        case .sslUnsupported:
            return "the server does not accept TLS (set tls = \"disable\" only on a trusted network)"
        case .connectionError:
            guard let underlying = error.underlying else { return "cannot connect" }
            if isTLS(underlying) { return tlsText(underlying) }
            return "cannot connect: \(underlying)"
        case .serverClosedConnection:
            return "the server closed the connection"
        case .clientClosedConnection:
            return "the connection was closed (timed out or shut down)"
        case .uncleanShutdown:
            return "the connection ended uncleanly (TLS)"
        case .saslError, .unsupportedAuthMechanism, .authMechanismRequiresPassword:
            let underlying = error.underlying.map { ": \($0)" } ?? ""
            return "authentication failed (\(error.code))\(underlying)"
        default:
            return "postgres-nio failed (\(error.code))"
        }
    }

    /// SQLSTATE class 28, invalid authorization specification: a wrong password, a role or
    /// address `pg_hba.conf` does not admit.
    private static func isAuthenticationState(_ state: String) -> Bool { state.hasPrefix("28") }

    /// A TLS failure: BoringSSL's reason names (`CERTIFICATE_VERIFY_FAILED`) when it gave some,
    /// without its source paths; NIOSSL's own description otherwise (a host name mismatch).
    private static func tlsText(_ error: any Error) -> String {
        let description = String(describing: error)
        let reasons = description.split(separator: "OPENSSL_internal:").dropFirst().map { $0.prefix { $0.isUppercase || $0.isNumber || $0 == "_" } }
        guard !reasons.isEmpty else { return "TLS failed: \(description)" }
        let hint = reasons.contains("CERTIFICATE_VERIFY_FAILED") ? " (the server's certificate is not signed by a CA in the system's store or ca_file)" : ""
        return "TLS handshake failed: " + reasons.joined(separator: ", ") + hint
    }

    private static func isTLS(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }
}
