import ForwardSettings
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import PassTapCore
import PassTapForward
import PassTapProtocol
import Testing

/// The PostgreSQL sink alone against a private cluster of Debian's PostgreSQL
/// (``PostgresCluster``): the table it creates, the rows it writes, redelivery, the TLS modes,
/// a refused login and a server restart. No pcscd: the events are made here.
@Suite(.serialized) struct PostgresSinkTests {
    /// A read.result as a phone tap publishes it (docs/socket-api.md), with a `seq` and `time`
    /// of its own.
    static func readResult(seq: UInt64, reader: String, error: String? = nil) -> String {
        let failure = error.map { #"{"code":"\#($0)","message":"the card left the field during the exchange"}"# } ?? "null"
        return #"{"seq":\#(seq),"time":"2026-11-26T21:04:05.123Z","kind":"read.result","reader":"\#(reader)","atr":"3B80800101","uid":"04A1B2C3D4E5F6","uid_note":null,"atqa":null,"sak":null,"ats":null,"target":"iso_dep","aid":null,"vas":{"offered":true,"wallet":"ApplePay","version":"0100","capabilities":{"hex":"0000003E","bits":["encrypted","vas_may_be_skipped","vas_may_be_performed","payment_may_be_skipped","payment_may_be_performed"]},"mode":"vas_or_payment","problem":null,"entries":[{"pass_type_id":"pass.com.example.coffee","status":"success","sw":"9000","key_id":"6D5E1F0A","timestamp":null,"timestamp_raw":null,"message":null,"message_hex":null,"variant":null,"problem":null,"withheld":"access"}]},"error":\#(failure),"duration_ms":64.905}"#
    }

    /// 2026-11-26T21:04:05.123Z.
    static let time = Date(timeIntervalSince1970: 1_795_727_045.123)

    /// Events `seqs` of `instance`, every third without a reader (a kind that has none).
    static func items(_ seqs: ClosedRange<UInt64>, instance: String = "9F3C2A71") -> [OutboxItem] {
        seqs.map { seq in
            let reader: String? = seq % 3 == 0 ? nil : "pcsc:Virtual PCD 00 0\(seq % 2)"
            return OutboxItem(
                rowID: Int64(seq), instance: instance, seq: seq, source: "till-\(seq % 2)", kind: .readResult, reader: reader,
                time: time.addingTimeInterval(Double(seq)), event: ByteBuffer(string: readResult(seq: seq, reader: reader ?? "-")))
        }
    }

    /// A logger that keeps everything, down to postgres-nio's trace lines.
    static func memoryLogger() -> (Logger, InMemoryLogHandler) {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        return (Logger(label: "test.postgres-sink") { _ in handler }, handler)
    }

    /// A sink on `cluster`: over its Unix socket unless `tcpHost` is given.
    static func sink(
        _ cluster: PostgresCluster, tcpHost: String? = nil, tls: Configuration.PostgresTLS = .disable, caFile: String? = nil,
        password: String? = nil, table: String = "passtap_events", logger: Logger = memoryLogger().0
    ) -> PostgresSink {
        let configuration = Configuration.ForwardPostgres(
            name: "fleet", host: tcpHost ?? cluster.socketDirectory, port: cluster.port, database: cluster.database, user: cluster.user,
            passwordFile: cluster.passwordFile, password: ForwardSecretText(password ?? cluster.password), tls: tls, caFile: caFile,
            table: table)
        return PostgresSink(configuration: configuration, logger: logger)
    }

    static func count(_ cluster: PostgresCluster, table: String = "passtap_events") throws -> Int {
        Int(try cluster.psql("SELECT count(*) FROM \(table)")) ?? -1
    }

    /// Whether the server sees a TLS connection from passtapd (`application_name`).
    static func sinkUsesTLS(_ cluster: PostgresCluster) throws -> String {
        try cluster.psql(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'passtapd'")
    }

    @Test func createsTheMissingTableAndWritesEveryColumnOverTheSocket() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        #expect(try cluster.psql("SELECT to_regclass('passtap_events') IS NULL") == "t")
        let sink = Self.sink(cluster)
        let batch = Self.items(1...3)
        #expect(await sink.deliver(batch) == .delivered)
        await sink.shutdown()

        let columns = try cluster.rows(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'passtap_events' ORDER BY ordinal_position")
        #expect(columns.map { "\($0["column_name"]!) \($0["data_type"]!) \($0["is_nullable"]!)" } == [
            "id text NO", "source text NO", "seq bigint NO", "instance text NO", "kind text NO", "reader text YES",
            "time timestamp with time zone NO", "event jsonb NO",
        ])
        #expect(try cluster.psql("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'passtap_events'::regclass AND i.indisprimary") == "id")
        #expect(try cluster.psql("SELECT indexdef FROM pg_indexes WHERE indexname = 'passtap_events_time_idx'").hasSuffix("USING btree (\"time\")"))

        let rows = try cluster.rows(
            "SELECT id, source, seq, instance, kind, reader, (extract(epoch FROM time) * 1000)::bigint AS ms, event FROM passtap_events ORDER BY seq")
        #expect(rows.count == 3)
        for (row, item) in zip(rows, batch) {
            #expect(row["id"] as? String == "9F3C2A71:\(item.seq)")
            #expect(row["source"] as? String == item.source)
            #expect((row["seq"] as? NSNumber)?.uint64Value == item.seq)
            #expect(row["instance"] as? String == "9F3C2A71")
            #expect(row["kind"] as? String == "read.result")
            #expect(row["reader"] as? String == item.reader)
            #expect((row["ms"] as? NSNumber)?.int64Value == Int64((item.time.timeIntervalSince1970 * 1000).rounded()))
            let event = try #require(row["event"] as? [String: Any])
            let sent = try #require(JSONSerialization.jsonObject(with: Data(String(buffer: item.event).utf8)) as? NSDictionary)
            #expect(NSDictionary(dictionary: event) == sent)
        }
        #expect(rows[2]["reader"] is NSNull)
        // `event` is jsonb: operators reach into it, and it is an object.
        #expect(try cluster.psql("SELECT count(*) FROM passtap_events WHERE jsonb_typeof(event) = 'object' AND event->'vas'->'entries'->0->>'status' = 'success'") == "3")
    }

    @Test func theSameBatchTwiceLeavesOneRowPerID() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let sink = Self.sink(cluster)
        #expect(await sink.deliver(Self.items(1...5)) == .delivered)
        #expect(await sink.deliver(Self.items(1...5)) == .delivered)
        #expect(try Self.count(cluster) == 5)
        // A batch overlapping what is there: only the new ids are added.
        #expect(await sink.deliver(Self.items(4...8)) == .delivered)
        #expect(try Self.count(cluster) == 8)
        #expect(try cluster.psql("SELECT count(DISTINCT id) FROM passtap_events") == "8")
        // Another sink (another till, a restarted daemon) delivering the same ids adds nothing.
        let other = Self.sink(cluster)
        #expect(await other.deliver(Self.items(1...8)) == .delivered)
        await other.shutdown()
        await sink.shutdown()
        #expect(try Self.count(cluster) == 8)
    }

    @Test func aNulInAStringIsStoredAsTheReplacementCharacter() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let sink = Self.sink(cluster)
        var item = Self.items(1...1)[0]
        item.event = ByteBuffer(string: #"{"seq":1,"kind":"read.result","message":"member\u00000042"}"#)
        #expect(await sink.deliver([item]) == .delivered)
        await sink.shutdown()
        #expect(try cluster.psql("SELECT event->>'message' = 'member' || chr(65533) || '0042' FROM passtap_events") == "t")
    }

    /// What docs/fleet.md tells a fleet to grant the tills' role: `INSERT`, and `SELECT` on `id`
    /// alone (`ON CONFLICT (id)` reads it); no `CREATE` on the schema, no reading the events.
    @Test func aRoleWithOnlyInsertAndSelectOfIDDelivers() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let owner = Self.sink(cluster)
        #expect(await owner.deliver(Self.items(1...1)) == .delivered)
        await owner.shutdown()
        try cluster.psql("CREATE ROLE till LOGIN PASSWORD 'till-password'; REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT INSERT, SELECT (id) ON passtap_events TO till")
        let configuration = Configuration.ForwardPostgres(
            name: "fleet", host: cluster.socketDirectory, port: cluster.port, database: cluster.database, user: "till",
            password: ForwardSecretText("till-password"), tls: .disable)
        let till = PostgresSink(configuration: configuration, logger: Self.memoryLogger().0)
        #expect(await till.deliver(Self.items(1...3)) == .delivered)
        await till.shutdown()
        #expect(try Self.count(cluster) == 3)
    }

    @Test func verifyFullTrustsTheCAFileAndChecksTheAddress() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let (logger, log) = Self.memoryLogger()
        let sink = Self.sink(cluster, tcpHost: "127.0.0.1", tls: .verifyFull, caFile: cluster.caFile, logger: logger)
        #expect(await sink.deliver(Self.items(1...2)) == .delivered)
        #expect(try Self.sinkUsesTLS(cluster) == "t")
        await sink.shutdown()
        // The certificate names 127.0.0.1 and localhost: a host name is checked as well.
        let byName = Self.sink(cluster, tcpHost: "localhost", tls: .verifyFull, caFile: cluster.caFile)
        #expect(await byName.deliver(Self.items(3...3)) == .delivered)
        await byName.shutdown()
        #expect(try Self.count(cluster) == 3)
        // Down to trace level, nothing logged shows the password.
        #expect(!log.entries.isEmpty)
        #expect(!log.entries.contains { "\($0.message) \($0.metadata)".contains(cluster.password) })
    }

    @Test func verifyFullRefusesAServerItsCAsDoNotVouchFor() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let otherCA = cluster.directory.appendingPathComponent("other-ca.pem").path
        try Rig.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj", "/CN=Another CA",
            "-keyout", cluster.directory.appendingPathComponent("other-ca.key").path, "-out", otherCA,
        ])
        for caFile in [otherCA, nil] {
            let sink = Self.sink(cluster, tcpHost: "127.0.0.1", tls: .verifyFull, caFile: caFile)
            let outcome = await sink.deliver(Self.items(1...2))
            await sink.shutdown()
            guard case .retry(let delivered, _, let error) = outcome else {
                Issue.record("not a retry with ca_file \(caFile ?? "none"): \(outcome)")
                continue
            }
            #expect(delivered == 0)
            #expect(error.reason == .tls && error.text.contains("TLS"), "\(error)")
            #expect(error.text.contains("127.0.0.1:\(cluster.port)"), "\(error)")
        }
        #expect(try cluster.psql("SELECT to_regclass('passtap_events') IS NULL") == "t")
    }

    @Test func verifyFullRefusesAnAddressTheCertificateDoesNotName() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        // The server listens on 127.0.0.2 too; its certificate names 127.0.0.1, ::1 and localhost.
        let sink = Self.sink(cluster, tcpHost: "127.0.0.2", tls: .verifyFull, caFile: cluster.caFile)
        let outcome = await sink.deliver(Self.items(1...1))
        await sink.shutdown()
        guard case .retry(0, _, let error) = outcome else { throw Rig.Failure(description: "not a retry: \(outcome)") }
        #expect(error.reason == .tls && error.text.contains("TLS") && error.text.contains("127.0.0.2"), "\(error)")
    }

    @Test func requireNeedsNoCAFileAndChecksNoName() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        for host in ["127.0.0.1", "127.0.0.2"] {
            let sink = Self.sink(cluster, tcpHost: host, tls: .require)
            #expect(await sink.deliver(Self.items(1...2)) == .delivered)
            #expect(try Self.sinkUsesTLS(cluster) == "t")
            await sink.shutdown()
            try Self.waitFor("the sink's backend to end") {
                (try? cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'passtapd'")) == "0"
            }
        }
        #expect(try Self.count(cluster) == 2)
    }

    @Test func aWrongPasswordIsARetryNamingAuthenticationNotThePassword() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let wrong = "not-the-password-\(UUID().uuidString.prefix(6))"
        let (logger, log) = Self.memoryLogger()
        for sink in [
            Self.sink(cluster, tcpHost: "127.0.0.1", tls: .verifyFull, caFile: cluster.caFile, password: wrong, logger: logger),
            Self.sink(cluster, password: wrong, logger: logger),
        ] {
            let outcome = await sink.deliver(Self.items(1...1))
            await sink.shutdown()
            guard case .retry(0, nil, let error) = outcome else {
                Issue.record("not a retry: \(outcome)")
                continue
            }
            #expect(error.reason == .auth && error.text.contains("authentication failed"), "\(error)")
            #expect(error.text.contains("28P01"), "\(error)")
            #expect(!error.text.contains(wrong) && !error.text.contains(cluster.password), "\(error)")
        }
        #expect(!log.entries.contains { "\($0.message) \($0.metadata)".contains(wrong) })
    }

    @Test func aServerRestartBetweenBatchesLosesNoRow() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let sink = Self.sink(cluster, tcpHost: "127.0.0.1", tls: .verifyFull, caFile: cluster.caFile)
        #expect(await sink.deliver(Self.items(1...10)) == .delivered)
        try cluster.restart()
        // The sink's connection died with the server: the first delivery may find out (a retry),
        // or reconnect; either way the next one goes through on a new connection.
        var pending = Self.items(11...20)
        let first = await sink.deliver(pending)
        if case .retry(0, _, let error) = first {
            #expect(!error.text.isEmpty)
        } else {
            #expect(first == .delivered)
            pending = Self.items(21...30)
        }
        #expect(await sink.deliver(pending) == .delivered)
        #expect(await sink.deliver(Self.items(21...30)) == .delivered)
        await sink.shutdown()
        #expect(try cluster.psql("SELECT string_agg(seq::text, ',' ORDER BY seq) FROM passtap_events") == (1...30).map(String.init).joined(separator: ","))
    }

    @Test func aServerThatIsDownIsARetryAndShutdownClosesTheConnection() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let sink = Self.sink(cluster)
        #expect(await sink.deliver(Self.items(1...1)) == .delivered)
        #expect(try cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'passtapd'") == "1")
        await sink.shutdown()
        // The server ends the backend once the socket closes; wait for it (with a deadline).
        try Self.waitFor("the sink's backend to end") {
            (try? cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'passtapd'")) == "0"
        }
        guard case .retry(0, _, let shutDown) = await sink.deliver(Self.items(2...2)) else { throw Rig.Failure(description: "delivered after shutdown") }
        #expect(shutDown.text.contains("shut down"))

        try cluster.stop()
        let another = Self.sink(cluster, tcpHost: "127.0.0.1", tls: .require)
        let outcome = await another.deliver(Self.items(2...2))
        await another.shutdown()
        guard case .retry(0, _, let error) = outcome else { throw Rig.Failure(description: "not a retry: \(outcome)") }
        #expect(error.text.contains("connecting to 127.0.0.1:\(cluster.port)"), "\(error)")
        #expect(error.reason == .connectionRefused, "\(error)")
    }

    @Test func aStatementWithNoAnswerTimesOut() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let prepare = Self.sink(cluster)
        #expect(await prepare.deliver(Self.items(1...1)) == .delivered)
        await prepare.shutdown()
        // Every insert now takes 30 s on the server.
        try cluster.psql("""
            CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
            CREATE TRIGGER stall BEFORE INSERT ON passtap_events FOR EACH ROW EXECUTE FUNCTION stall();
            """)
        let configuration = Configuration.ForwardPostgres(
            name: "fleet", host: cluster.socketDirectory, port: cluster.port, database: cluster.database, user: cluster.user,
            password: ForwardSecretText(cluster.password), tls: .disable)
        let sink = PostgresSink(configuration: configuration, logger: Self.memoryLogger().0, timeout: .milliseconds(500))
        let outcome = await sink.deliver(Self.items(2...2))
        await sink.shutdown()
        guard case .retry(0, _, let error) = outcome else { throw Rig.Failure(description: "not a retry: \(outcome)") }
        #expect(error.reason == .timeout && error.text.contains("no answer within"), "\(error)")
    }

    static func waitFor(_ what: String, timeout: Double = 15, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw Rig.Failure(description: "timed out waiting for \(what)") }
            usleep(20_000)
        }
    }
}
