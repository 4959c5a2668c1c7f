import NIOSSL
import PassTapCore
import PostgresNIO

/// How a `[[forward.postgres]]` entry reaches its server: the connection configuration
/// postgres-nio takes, made once per sink.
///
/// - `host` starting with `/` is a Unix socket directory: the socket is `<host>/.s.PGSQL.<port>`,
///   as libpq names it. TLS is never used there (as libpq, which does not offer it on a socket).
/// - `tls` has libpq's `sslmode` meanings: `disable`, no TLS; `require`, TLS without checking the
///   certificate; `verify-full`, the chain checked against the system's trust store and `ca_file`,
///   and the certificate's names against `host` (a DNS name, or an IP address against the
///   certificate's IP addresses).
enum PostgresEndpoint {
    /// The connection configuration for `configuration`; throws when `ca_file` cannot be read as
    /// PEM certificates.
    static func connectionConfiguration(for configuration: Configuration.ForwardPostgres) throws -> PostgresConnection.Configuration {
        var connection: PostgresConnection.Configuration
        if isUnixSocketDirectory(configuration.host) {
            connection = PostgresConnection.Configuration(
                unixSocketPath: socketPath(directory: configuration.host, port: configuration.port),
                username: configuration.user, password: configuration.password?.value, database: configuration.database)
        } else {
            connection = PostgresConnection.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.user,
                password: configuration.password?.value, database: configuration.database,
                tls: try tls(configuration.tls, caFile: configuration.caFile))
        }
        connection.options.connectTimeout = .seconds(10)
        connection.options.additionalStartupParameters = [("application_name", "passtapd")]
        return connection
    }

    /// Whether `host` names a Unix socket directory (it starts with `/`, as in libpq).
    static func isUnixSocketDirectory(_ host: String) -> Bool { host.hasPrefix("/") }

    /// The socket libpq would connect to: `<directory>/.s.PGSQL.<port>`.
    static func socketPath(directory: String, port: Int) -> String {
        (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/.s.PGSQL.\(port)"
    }

    /// postgres-nio's TLS mode for libpq's `sslmode` `mode`.
    static func tls(_ mode: Configuration.PostgresTLS, caFile: String?) throws -> PostgresConnection.Configuration.TLS {
        var client = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable:
            return .disable
        case .require:
            client.certificateVerification = .none
        case .verifyFull:
            client.certificateVerification = .fullVerification
            client.trustRoots = .default
            if let caFile {
                client.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(caFile))]
            }
        }
        return .require(try NIOSSLContext(configuration: client))
    }
}
