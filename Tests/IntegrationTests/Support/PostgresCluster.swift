import ForwardSettings
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster from Debian's `postgresql` (`scripts/rig/pg-cluster`): its own
/// folder under /tmp, a Unix socket directory and a loopback TCP port (on 127.0.0.1, and on
/// 127.0.0.2, which its certificate does not name), TLS with a throwaway CA (``caFile``),
/// scram-sha-256 passwords, and the role and database `passtap` (which may create roles).
///
/// Each cluster has its own folder and port, so suites using one need no lock. Rows are read
/// back with `psql` as the `passtap` role over the socket.
final class PostgresCluster {
    /// The cluster's folder (data, certificates, logs).
    let directory: URL
    /// The loopback TCP port (127.0.0.1), kept across restarts.
    private(set) var port = 0
    /// The role the tests and the sinks log in as, owner of ``database``.
    let user = "passtap"
    /// The database.
    let database = "passtap"

    /// The Unix socket directory (`host` for a sink over the socket).
    var socketDirectory: String { directory.appendingPathComponent("socket").path }
    /// The throwaway CA that signed the server's certificate (for 127.0.0.1, ::1 and localhost).
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// The file with ``user``'s password (mode 0600).
    var passwordFile: String { directory.appendingPathComponent("password").path }
    /// ``user``'s password.
    var password: String {
        ((try? String(contentsOfFile: passwordFile, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
    /// The server's log so far, for failure messages.
    var log: String { (try? String(contentsOf: directory.appendingPathComponent("postgres.log"), encoding: .utf8)) ?? "" }

    private static var script: String { Rig.repository.appendingPathComponent("scripts/rig/pg-cluster").path }

    /// Makes and starts a new cluster; returns once it accepts connections on both the socket
    /// and TCP.
    init() throws {
        // /tmp, not $TMPDIR: the server runs as `postgres`, which must get through every parent.
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("passtap-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        do {
            try start()
        } catch {
            remove()
            throw error
        }
    }

    /// Starts the server (again, on the same port after the first start) and waits until it
    /// accepts connections.
    func start() throws {
        let output = try Self.pgCluster(["start", directory.path] + (port == 0 ? [] : [String(port)]))
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("port=") }), let port = Int(line.dropFirst(5)) else {
            throw Rig.Failure(description: "pg-cluster did not report a port: \(output)")
        }
        self.port = port
        try waitUntilReady()
    }

    /// Stops the server: `fast` (sessions are ended, as at a planned restart) or `immediate` (as
    /// a crash: no shutdown checkpoint).
    func stop(mode: String = "fast") throws {
        try Self.pgCluster(["stop", directory.path, mode])
    }

    /// Stops and starts the server on the same port; returns once it accepts connections.
    func restart() throws {
        try stop()
        try start()
    }

    /// Stops the server and deletes its folder.
    func remove() {
        _ = try? Self.pgCluster(["stop", directory.path, "immediate"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits until `pg_isready` sees the server accept connections on the socket and on TCP.
    func waitUntilReady(timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        for host in [socketDirectory, "127.0.0.1"] {
            while try Spawned.finish("/usr/bin/pg_isready", ["-q", "-h", host, "-p", String(port), "-d", database], deadline: timeout).status != 0 {
                guard Date() < deadline else { throw Rig.Failure(description: "PostgreSQL not ready on \(host) after \(timeout) s\n\(log)") }
                usleep(20_000)
            }
        }
    }

    /// Runs `sql` with `psql` as ``user`` over the socket and returns its unaligned, tuples-only
    /// output; a failing statement throws with psql's message.
    @discardableResult
    func psql(_ sql: String) throws -> String {
        let finished = try Spawned.finish(
            "/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", String(port), "-U", user, "-d", database, "-c", sql],
            environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"], deadline: 60)
        guard finished.status == 0 else { throw Rig.Failure(description: "psql failed (\(finished.status)): \(finished.output)\nSQL: \(sql)") }
        return finished.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The rows of `query`, each a JSON object of its columns (`json_agg`; a `jsonb` column is
    /// the JSON value itself, a `timestamptz` an ISO 8601 string).
    func rows(_ query: String) throws -> [[String: Any]] {
        let text = try psql("SELECT coalesce(json_agg(q), '[]'::json) FROM (\(query)) q")
        guard let rows = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else {
            throw Rig.Failure(description: "not rows: \(text)")
        }
        return rows
    }

    /// A `[[forward.postgres]]` entry for passtapd's config: TCP to 127.0.0.1 with `verify-full`
    /// and ``caFile``, the password from ``passwordFile``.
    func forwardEntry(name: String = "fleet", table: String = "passtap_events", kinds: [String] = ["read.result"], includeMessage: Bool = false) -> String {
        """
        [[forward.postgres]]
        name = "\(name)"
        host = "127.0.0.1"
        port = \(port)
        database = "\(database)"
        user = "\(user)"
        password_file = "\(passwordFile)"
        tls = "verify-full"
        ca_file = "\(caFile)"
        table = "\(table)"
        kinds = [\(kinds.map { "\"\($0)\"" }.joined(separator: ", "))]
        include_message = \(includeMessage)

        """
    }

    @discardableResult
    private static func pgCluster(_ arguments: [String]) throws -> String {
        try Rig.run(script, arguments, timeout: 90)
    }
}
