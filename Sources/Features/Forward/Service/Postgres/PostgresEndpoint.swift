import ForwardSettings
import NIOCore
import NIOPosix
import NIOSSL
import PassTapCore
import PostgresNIO

/// How a `[[forward.postgres]]` entry reaches its server: the connection configuration
/// postgres-nio takes, made at each connection.
///
/// - `host` starting with `/` is a Unix socket directory: the socket is `<host>/.s.PGSQL.<port>`,
///   as libpq names it. TLS is never used there (as libpq, which does not offer it on a socket).
/// - `tls` has libpq's `sslmode` meanings: `disable`, no TLS; `require`, TLS without checking the
///   certificate, or, with `ca_file`, the chain checked against that file alone but not the name
///   (libpq's `verify-ca`, which is what libpq makes of `require` with a root certificate file);
///   `verify-full`, the chain checked against the system's trust store and `ca_file`, and the
///   certificate's names against `host` (a DNS name, or an IP address against the certificate's
///   IP addresses).
/// - A TCP server no certificate proves (`disable`, `require` without `ca_file`) gets the
///   password only through SCRAM-SHA-256: ``PostgresPasswordGuard`` closes the connection when
///   such a server asks for it in cleartext or as an MD5 hash.
enum PostgresEndpoint {
    /// The connection configuration for `configuration` (a Unix socket, or a TCP server that a
    /// certificate proves); throws when `ca_file` cannot be read as PEM certificates.
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
        setOptions(&connection)
        return connection
    }

    /// Whether the server is reached over TCP without a certificate proving it (`disable`, or
    /// `require` without `ca_file`): its login is watched by ``PostgresPasswordGuard``. A Unix
    /// socket is proven by its file's permissions, as libpq trusts it.
    static func needsPasswordGuard(_ configuration: Configuration.ForwardPostgres) -> Bool {
        guard !isUnixSocketDirectory(configuration.host) else { return false }
        switch configuration.tls {
        case .disable: return true
        case .require: return configuration.caFile == nil
        case .verifyFull: return false
        }
    }

    /// A TCP connection to an unproven server (``needsPasswordGuard(_:)``), with a
    /// ``PostgresPasswordGuard`` first in its pipeline, connected within 10 s.
    static func guardedChannel(for configuration: Configuration.ForwardPostgres) async throws -> any Channel {
        let tlsRequested = configuration.tls != .disable
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PostgresPasswordGuard(tlsRequested: tlsRequested))
                }
            }
            .connect(host: configuration.host, port: configuration.port).get()
    }

    /// The connection configuration over `channel`, from ``guardedChannel(for:)``.
    static func connectionConfiguration(
        for configuration: Configuration.ForwardPostgres, over channel: any Channel
    ) throws -> PostgresConnection.Configuration {
        var connection = PostgresConnection.Configuration(
            establishedChannel: channel, tls: try tls(configuration.tls, caFile: configuration.caFile), username: configuration.user,
            password: configuration.password?.value, database: configuration.database)
        setOptions(&connection)
        // The name postgres-nio would send as SNI on its own connection (none for an address).
        if (try? SocketAddress(ipAddress: configuration.host, port: 0)) == nil { connection.options.tlsServerName = configuration.host }
        return connection
    }

    /// How long connecting may take.
    static let connectTimeout = TimeAmount.seconds(10)

    /// The options every connection gets: the connect timeout and `application_name`.
    private static func setOptions(_ connection: inout PostgresConnection.Configuration) {
        connection.options.connectTimeout = connectTimeout
        connection.options.additionalStartupParameters = [("application_name", "passtapd")]
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
            if let caFile {
                // libpq's verify-ca: sslmode=require with a root certificate file checks the chain
                // against that file (and only it), not the name.
                client.certificateVerification = .noHostnameVerification
                client.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            } else {
                client.certificateVerification = .none
            }
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
