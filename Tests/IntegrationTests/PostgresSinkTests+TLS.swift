import ForwardSettings
import Foundation
import InMemoryLogging
import PassTapCore
import PassTapForward
import PassTapProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension PostgresSinkTests {
    /// Makes a throwaway self-signed certificate `name` (CN `cn`) in `folder`: `name.pem` and
    /// `name.key`; returns their paths.
    static func selfSigned(_ name: String, cn: String, in folder: URL) throws -> (cert: String, key: String) {
        let cert = folder.appendingPathComponent("\(name).pem").path
        let key = folder.appendingPathComponent("\(name).key").path
        try Rig.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=\(cn)",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
        ])
        return (cert, key)
    }

    /// libpq's `verify-ca`: `tls = "require"` with a `ca_file` checks the chain against that
    /// file, not the name. A certificate another CA signed is refused; the cluster's own, on an
    /// address it does not name (127.0.0.2), is accepted.
    @Test func requireWithACAFileChecksTheChainAgainstItButNotTheName() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let other = try Self.selfSigned("other-ca", cn: "Another CA", in: cluster.directory)
        let refused = Self.sink(cluster, tcpHost: "127.0.0.1", tls: .require, caFile: other.cert)
        let outcome = await refused.deliver(Self.items(1...1))
        await refused.shutdown()
        guard case .retry(0, _, let error) = outcome else {
            Issue.record("a server another CA signed was accepted with tls = require and a ca_file: \(outcome)")
            return
        }
        #expect(error.reason == .tls && error.text.contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")

        let byAddress = Self.sink(cluster, tcpHost: "127.0.0.2", tls: .require, caFile: cluster.caFile)
        #expect(await byAddress.deliver(Self.items(1...2)) == .delivered)
        #expect(try Self.sinkUsesTLS(cluster) == "t")
        await byAddress.shutdown()
        #expect(try Self.count(cluster) == 2)
    }

    /// The forged servers: TLS off, or TLS with a certificate nothing vouches for, each asking
    /// for the password in cleartext or as an MD5 hash.
    static let forgedServers: [(Configuration.PostgresTLS, String)] = [
        (.disable, "cleartext"), (.disable, "md5"), (.require, "cleartext"), (.require, "md5"),
    ]

    /// A forged server (`scripts/rig/fake_postgres.py`) on a port the sink is configured for,
    /// with no certificate proving it, asks for the password: the sink closes the connection,
    /// the password (or its MD5 hash) never leaves the till, and the delivery fails as `auth`.
    @Test(arguments: forgedServers)
    func aForgedServerAskingForThePasswordGetsNothing(tls: Configuration.PostgresTLS, ask: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-fake-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready").path
        let report = folder.appendingPathComponent("report.json").path
        var arguments = [Rig.repository.appendingPathComponent("scripts/rig/fake_postgres.py").path, "--ready", ready, "--report", report, "--ask", ask]
        if tls != .disable {
            let pair = try Self.selfSigned("forged", cn: "127.0.0.1", in: folder)
            arguments += ["--cert", pair.cert, "--key", pair.key]
        }
        let server = try Spawned.start(
            "/usr/bin/python3", arguments, stdout: folder.appendingPathComponent("out").path, stderr: folder.appendingPathComponent("err").path)
        var reaped = false
        defer { if !reaped { _ = server.wait(seconds: 0) } }  // kills it if it is still there
        try Self.waitFor("the forged server to listen") { FileManager.default.fileExists(atPath: ready) }
        let port = try #require(Int(try String(contentsOfFile: ready, encoding: .utf8)))

        let password = "forged-servers-never-see-\(UUID().uuidString.prefix(8))"
        let configuration = Configuration.ForwardPostgres(
            name: "fleet", host: "127.0.0.1", port: port, database: "passtap", user: "passtap", password: ForwardSecretText(password), tls: tls)
        let (logger, log) = Self.memoryLogger()
        let sink = PostgresSink(configuration: configuration, logger: logger)
        let outcome = await sink.deliver(Self.items(1...1))
        await sink.shutdown()

        #expect(server.wait(seconds: 15).inTime, "the forged server did not finish")
        reaped = true
        let seen = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(seen["startup_user"] as? String == "passtap", "\(seen)")
        #expect(seen["tls"] as? Bool == (tls == .require), "\(seen)")
        // Nothing at all after the request: no PasswordMessage ('p'), no hash.
        #expect(seen["after_request_hex"] as? String == "", "\(seen)")
        guard case .retry(0, _, let error) = outcome else {
            Issue.record("not a retry: \(outcome)")
            return
        }
        #expect(error.reason == .auth, "\(error)")
        #expect(error.text.contains(ask == "md5" ? "MD5" : "cleartext") && error.text.contains("was not sent"), "\(error)")
        #expect(!error.text.contains(password))
        #expect(!log.entries.contains { "\($0.message) \($0.metadata)".contains(password) })
    }
}
