import MetricsSettings
import ForwardSettings
import WebSettings
import Foundation
import InMemoryLogging
import Logging
import PassTapCore
import PassTapDaemon
import Synchronization
import Testing

/// What a reload compares and keeps: restart-only settings are named and keep their running value;
/// reloadable ones are listed and taken; a refused file changes nothing.
@Suite(.timeLimit(.minutes(1))) struct ReloadPlanTests {
    static func parse(_ text: String) throws -> Configuration {
        try ConfigLoader.parse(text, file: "t.toml")
    }

    /// The rows come from the core tables and each feature's section, and keep the order and the
    /// names `config.reloaded` has always had (docs/socket-api.md, "Events").
    @Test func rowsKeepTheirOrderAndNames() {
        #expect(
            ConfigSetting.restartOnly.map(\.key) == [
                "socket.path", "socket.mode", "socket.group", "socket.max_clients", "metrics.listen",
                "metrics.max_connections", "web.listen", "web.max_clients", "forward.outbox"
            ])
        #expect(
            ConfigSetting.reloadable.map(\.key) == [
                "log.level", "access", "socket.allow_transmit", "socket.max_clients_per_uid",
                "socket.idle_timeout_ms", "socket.vas_reads_per_uid", "events.buffer",
                "events.buffer_bytes", "events.client_queue", "session.aids", "session.ppse",
                "session.budget_ms", "reader", "vas.enabled", "vas.mode", "vas.order",
                "vas.stop_on_first_pass", "vas.freshness_s", "vas.publish_stale", "vas.merchants",
                "smarttap.enabled", "smarttap.collector_id", "smarttap.key_version", "smarttap.key",
                "ndef.enabled", "pcsc", "libnfc", "web.tokens", "web.max_clients_per_token",
                "web.max_pending_per_uid", "web.vas_reads_per_token", "web.idle_timeout_ms",
                "web.auth_timeout_ms", "web.auth_failures_per_origin", "web.auth_failures_total",
                "forward.max_pending_bytes", "forward.sync", "forward.source",
                "forward.removed_sink_keep_hours", "forward.webhooks", "forward.postgres",
                "feedback.enabled", "feedback.silence_detection_beep", "feedback.patterns", "feedback.readers",
            ])
    }

    @Test func aRestartOnlyChangeIsNamedAndKeepsItsRunningValue() throws {
        let old = try Self.parse("[socket]\npath = \"/run/a.sock\"\nmax_clients = 10\n[log]\nlevel = \"info\"")
        let new = try Self.parse("[socket]\npath = \"/run/b.sock\"\nmax_clients = 20\nmode = \"0600\"\n[log]\nlevel = \"debug\"")
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.restartRequired == ["socket.path", "socket.mode", "socket.max_clients"])
        #expect(plan.effective.socket.path == "/run/a.sock")
        #expect(plan.effective.socket.maxClients == 10)
        #expect(plan.effective.socket.mode == 0o660)
        #expect(plan.changed == ["log.level"])
        #expect(plan.effective.logLevel == .debug)
    }

    @Test func everyRestartOnlyRowKeepsTheOldValueSoNoneDiffersAfterwards() throws {
        let old = try Self.parse("[socket]\npath = \"/run/a.sock\"")
        let new = try Self.parse(
            "[socket]\npath = \"/run/b.sock\"\ngroup = \"root\"\nmode = \"0600\"\nmax_clients = 3\n[metrics]\nlisten = \"127.0.0.1:9466\"\nmax_connections = 2\n"
                + "[web]\nlisten = \"127.0.0.1:8941\"\nmax_clients = 3\n[forward]\noutbox = \"/var/lib/elsewhere/outbox.sqlite\"")
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.restartRequired.count == ConfigSetting.restartOnly.count)
        #expect(plan.restartRequired.contains("metrics.listen") && plan.restartRequired.contains("web.listen"))
        #expect(plan.effective.metrics.listen == nil && plan.effective.web.listen == nil)
        #expect(ConfigSetting.restartOnly.allSatisfy { !$0.differs(old, plan.effective) })
    }

    @Test func reloadableChangesAreListedInTableOrder() throws {
        let old = try Self.parse("[session]\naids = [\"A0000000041010\"]\n[events]\nbuffer = 100")
        let new = try Self.parse(
            """
            [session]
            aids = ["A0000000031010"]
            budget_ms = 1500
            [events]
            buffer = 50
            client_queue = 8
            [access]
            read = ["uid:1234"]
            [[reader]]
            match = "PCD 00 01"
            aids = ["A0000000031010"]
            [pcsc]
            readers = ["PCD 00 01"]
            [vas]
            freshness_s = 30
            """)
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.restartRequired.isEmpty)
        #expect(
            plan.changed == [
                "access", "events.buffer", "events.client_queue", "session.aids", "session.budget_ms", "reader", "vas.freshness_s", "pcsc",
            ])
        #expect(plan.effective == new)
    }

    /// `[forward] outbox` is opened once, at start; the sinks and the other `[forward]` keys reload.
    @Test func theOutboxIsRestartOnlyAndTheSinksAndOtherForwardKeysReload() throws {
        let folder = try VASConfigTests.Folder()
        try folder.secretFile("a.secret")
        try folder.secretFile("b.secret", contents: VASConfigTests.Folder.webhookSecret(1).text)
        let webhook = "[[forward.webhooks]]\nname = \"loyalty\"\nurl = \"https://a.example\"\nsecret_file = \"a.secret\"\n"
        let old = try ConfigLoader.parse("[forward]\n" + webhook, file: folder.configFile)
        let new = try ConfigLoader.parse(
            """
            [forward]
            outbox = "/var/lib/elsewhere/outbox.sqlite"
            max_pending_bytes = 2097152
            sync = "full"
            source = "till-4"
            removed_sink_keep_hours = 1
            [[forward.postgres]]
            name = "fleet"
            host = "/run/postgresql"
            database = "passtap"
            user = "passtap"
            tls = "disable"
            """, file: folder.configFile)
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.restartRequired == ["forward.outbox"])
        #expect(plan.effective.forward.outbox == "/var/lib/passtap/outbox.sqlite")
        #expect(
            plan.changed == [
                "forward.max_pending_bytes", "forward.sync", "forward.source", "forward.removed_sink_keep_hours", "forward.webhooks",
                "forward.postgres",
            ])
        #expect(plan.effective.forward.webhooks.isEmpty && plan.effective.forward.postgres.map(\.name) == ["fleet"])
        // A new secret in the same file is a change of that sink.
        try folder.secretFile("a.secret", contents: VASConfigTests.Folder.webhookSecret(2).text)
        let rotated = try ConfigLoader.parse("[forward]\n" + webhook, file: folder.configFile)
        #expect(ReloadPlan(old: old, new: rotated).changed == ["forward.webhooks"])
    }

    @Test func theSameFileChangesNothing() throws {
        let configuration = try Self.parse("[session]\naids = [\"A0000000041010\"]")
        let plan = ReloadPlan(old: configuration, new: configuration)
        #expect(plan.changed.isEmpty && plan.restartRequired.isEmpty)
    }

    @Test func backendsRestartOnlyWhenTheirOwnSettingsDiffer() throws {
        let old = try Self.parse("[pcsc]\nreaders = [\"PCD 00 00\"]")
        #expect(!ReloadPlan.backendDiffers(.pcsc, old: old, new: try Self.parse("[pcsc]\nreaders = [\"PCD 00 00\"]\n[log]\nlevel = \"debug\"")))
        #expect(ReloadPlan.backendDiffers(.pcsc, old: old, new: try Self.parse("[pcsc]\nreaders = [\"PCD 00 01\"]")))
        #expect(ReloadPlan.backendDiffers(.pcsc, old: old, new: try Self.parse("[pcsc]\nenabled = false")))
        #expect(!ReloadPlan.backendDiffers(.nfc, old: old, new: old))
        let nfc = try Self.parse("[libnfc]\nenabled = true\ndevices = [\"pn532_uart:/dev/ttyS9\"]")
        #expect(ReloadPlan.backendDiffers(.nfc, old: old, new: nfc))
        // The libnfc poll sends [vas] mode's ECP frame: turning VAS on restarts it.
        let withVAS = try Self.parse("[libnfc]\nenabled = true\ndevices = [\"pn532_uart:/dev/ttyS9\"]\n[vas]\nenabled = true\nmode = \"vas_only\"\n[[vas.merchants]]\npass_type_id = \"pass.com.example.a\"\nurl = \"https://example.com/join\"")
        #expect(ReloadPlan.backendDiffers(.nfc, old: nfc, new: withVAS))
        #expect(!ReloadPlan.backendDiffers(.pcsc, old: nfc, new: withVAS))
    }

    /// Counts the reloads it is told of.
    final class CountingObserver: ConfigurationObserver {
        let count = Mutex(0)
        func configurationChanged(from old: Configuration, to new: Configuration) { count.withLock { $0 += 1 } }
    }

    /// A recorder for what the reloader publishes.
    final class Published: Sendable {
        let events = Mutex<[(EventKind, EventPayload)]>([])
        var sink: EventSink { EventSink { kind, _, payload in self.events.withLock { $0.append((kind, payload)) } } }
    }

    @Test func aRefusedFileIsPublishedWithFileLineAndKeyAndChangesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("passtapd.toml").path
        try "[log]\nlevel = \"debug\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let running = try ConfigLoader.load(path: file)
        let live = LiveConfiguration(running)
        let applied = CountingObserver()
        let published = Published()
        let reloader = ConfigReloader(
            path: file, live: live, observers: [applied], events: published.sink, notifier: nil, logger: Logger(label: "test"))

        try "[log]\nlevel = \"debug\"\n[session]\naids = [\"A00000\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
        guard case .rejected(let error) = await reloader.reload() else {
            Issue.record("a bad AID was accepted")
            return
        }
        #expect(live.current == running)
        #expect(applied.count.withLock { $0 } == 0)
        let (kind, payload) = try #require(published.events.withLock { $0.first })
        #expect(kind == .configRejected)
        #expect(payload == .configRejected(ConfigRejected(file: file, line: 4, key: "session.aids[0]", problem: error.problem)))
        // The same function as --check-config: the same error.
        #expect(throws: error) { try Daemon.loadConfiguration(path: file) }

        try "[log]\nlevel = \"trace\"\n[socket]\npath = \"/run/elsewhere.sock\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        guard case .reloaded(let plan) = await reloader.reload() else {
            Issue.record("a good file was refused")
            return
        }
        #expect(plan.changed == ["log.level"] && plan.restartRequired == ["socket.path"])
        #expect(live.current.logLevel == .trace)
        #expect(live.current.socket.path == running.socket.path)
        #expect(applied.count.withLock { $0 } == 1)
        #expect(
            published.events.withLock { $0.last?.1 }
                == .configReloaded(ConfigReloaded(file: file, changed: ["log.level"], restartRequired: ["socket.path"])))
    }

    /// A reload whose sinks would open the outbox where its folder is missing is refused as start
    /// refuses it: file, line, `forward.outbox`. The running outbox counts (a new `outbox` waits
    /// for a restart); once its folder exists, the same file reloads.
    @Test func aReloadThatWouldOpenTheOutboxInAMissingFolderIsRefused() async throws {
        let folder = try VASConfigTests.Folder()
        try folder.secretFile("a.secret")
        let file = folder.configFile
        try "[forward]\noutbox = \"missing/outbox.sqlite\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let live = LiveConfiguration(try ConfigLoader.load(path: file))
        let reloader = ConfigReloader(path: file, live: live, observers: [], events: Published().sink, notifier: nil, logger: Logger(label: "test"))

        let webhook = "[[forward.webhooks]]\nname = \"loyalty\"\nurl = \"https://a.example\"\nsecret_file = \"a.secret\"\n"
        try "[forward]\noutbox = \"\(folder.path)/outbox.sqlite\"\n\(webhook)".write(toFile: file, atomically: true, encoding: .utf8)
        guard case .rejected(let error) = await reloader.reload() else {
            Issue.record("a sink was added with the outbox's folder missing")
            return
        }
        #expect(error.file == file && error.line == 2 && error.keyPath == "forward.outbox", "\(error)")
        #expect(
            error.problem.hasPrefix(
                "the sinks need the outbox \(folder.path)/missing/outbox.sqlite (the running one: [forward] outbox changes at restart): the outbox's folder \(folder.path)/missing does not exist"),
            "\(error)")
        #expect(live.current.forward.sinks.isEmpty)

        try FileManager.default.createDirectory(atPath: folder.path + "/missing", withIntermediateDirectories: false)
        guard case .reloaded(let plan) = await reloader.reload() else {
            Issue.record("refused once the folder exists")
            return
        }
        #expect(plan.changed == ["forward.webhooks"] && plan.restartRequired == ["forward.outbox"])
    }

    /// Webhook `url` lines a reload refuses, each with a secret in its path and query (and one in
    /// its user information): a bad scheme, user information, no host, plain http to the
    /// network, and a URL without its quotes (a TOML syntax error).
    static let secretURLLines = [
        #"url = "ftp://h.example/SECRETPATH?token=SECRETQUERY""#,
        #"url = "https://bob:SECRETPASS@h.example/SECRETPATH?token=SECRETQUERY""#,
        #"url = "https:/h.example/SECRETPATH?token=SECRETQUERY""#,
        #"url = "http://h.example:8080/SECRETPATH?token=SECRETQUERY#SECRETFRAGMENT""#,
        #"url = https://h.example/SECRETPATH?token=SECRETQUERY"#,
    ]

    /// `config.rejected` goes to every `observe` subscriber, and the error to the journal: a
    /// webhook URL's path, query and user information (where its secret often is) are in neither.
    @Test(arguments: secretURLLines)
    func aRejectedReloadQuotesOnlyTheSchemeAndHostOfAWebhookURL(line: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("passtapd.toml").path
        try "[log]\nlevel = \"info\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let live = LiveConfiguration(try ConfigLoader.load(path: file))
        let published = Published()
        let memory = InMemoryLogHandler()
        let reloader = ConfigReloader(
            path: file, live: live, observers: [], events: published.sink, notifier: nil, logger: Logger(label: "test") { _ in memory })

        let text = "[forward]\n[[forward.webhooks]]\nname = \"loyalty\"\n\(line)\nsecret_file = \"loyalty.secret\"\n"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        guard case .rejected(let error) = await reloader.reload() else {
            Issue.record("accepted: \(line)")
            return
        }
        guard case (.configRejected, .configRejected(let rejected))? = published.events.withLock({ $0.last }) else {
            Issue.record("no config.rejected was published")
            return
        }
        let event = String(decoding: try JSONEncoder().encode(rejected), as: UTF8.self)
        let logged = memory.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        for shown in [error.description, event, logged] {
            // Without scheme:// the host cannot be told apart: what comes before the first / is
            // all that is shown ("https:").
            if line.contains("://") { #expect(shown.contains("h.example"), "\(shown)") }
            #expect(!shown.contains("SECRET") && !shown.contains("bob"), "\(shown)")
        }
        #expect(error.line == 4, "\(error)")
    }

    /// A reload may turn a reader backend on: its budget must fit the open-file limit too.
    @Test func aReloadWhoseBudgetIsOverTheHardOpenFileLimitIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("passtapd.toml").path
        try "[pcsc]\nenabled = false\n".write(toFile: file, atomically: true, encoding: .utf8)
        let running = try ConfigLoader.load(path: file)
        let live = LiveConfiguration(running)
        let published = Published()
        // The daemon's own limit, made small: room for the running budget, not for 16 more readers.
        let limit = FileDescriptorLimit(soft: FileDescriptorBudget(running).total, hard: FileDescriptorBudget(running).total + 10)
        let reloader = ConfigReloader(
            path: file, live: live,
            reserve: { budget, path throws(FileDescriptorBudgetError) in
                _ = try Daemon.reserveFileDescriptors(for: budget, file: path, limit: limit) { _ in nil }
            },
            observers: [], events: published.sink, notifier: nil, logger: Logger(label: "test"))

        try "[pcsc]\nenabled = true\n".write(toFile: file, atomically: true, encoding: .utf8)
        guard case .rejected(let error) = await reloader.reload() else {
            Issue.record("a reload over the hard open-file limit was accepted")
            return
        }
        #expect(error.file == file)
        #expect(error.problem.contains("below the file descriptor budget") && error.problem.contains("[pcsc] readers"), "\(error.problem)")
        #expect(live.current == running)
        #expect(published.events.withLock { $0.last?.0 } == .configRejected)

        try "[pcsc]\nenabled = false\n[log]\nlevel = \"debug\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        guard case .reloaded = await reloader.reload() else {
            Issue.record("a reload within the budget was refused")
            return
        }
        #expect(live.current.logLevel == .debug)
    }
}
