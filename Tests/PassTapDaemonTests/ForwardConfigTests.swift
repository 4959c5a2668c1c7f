import WebSettings
import ForwardSettings
import Foundation
import PassTapCore
import PassTapDaemon
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension VASConfigTests.Folder {
    /// A webhook secret of 32 bytes, different for each `seed`.
    static func webhookSecret(_ seed: UInt8 = 0) -> WebhookSecret {
        WebhookSecret(key: (0..<32).map { UInt8($0) &+ seed &* 7 })
    }

    /// Writes `contents` (by default a good webhook secret and a newline) to `name` with `mode`,
    /// and returns its path.
    @discardableResult
    func secretFile(_ name: String, mode: mode_t = 0o600, contents: String? = nil) throws -> String {
        let file = path + "/" + name
        try Data((contents ?? Self.webhookSecret().text + "\n").utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, mode)
        return file
    }
}

/// `[forward]`, `[[forward.webhooks]]` and `[[forward.postgres]]`: every key read, defaults, secret
/// and password files checked as key files, and every refusal naming the file, line, key and what
/// was expected, never a secret.
@Suite(.timeLimit(.minutes(1))) struct ForwardConfigTests {
    typealias Folder = VASConfigTests.Folder
    static let password = "s3cret-Passw0rd-xyz"

    /// One webhook `loyalty` (secret file `loyalty.secret`), with `extra` lines in its table.
    static func webhook(url: String = "https://loyalty.example.com/taps", _ extra: String = "") -> String {
        """
        [forward]
        [[forward.webhooks]]
        name = "loyalty"
        url = "\(url)"
        secret_file = "loyalty.secret"
        \(extra)
        """
    }

    /// One PostgreSQL sink `fleet`, with `extra` lines in its table.
    static func postgres(_ extra: String = "") -> String {
        """
        [forward]
        [[forward.postgres]]
        name = "fleet"
        host = "db.example.com"
        database = "passtap"
        user = "passtap"
        \(extra)
        """
    }

    /// The refusal of `text` (``VASConfigTests/Folder/refusal(_:listening:secrets:)``): no secret
    /// or password reaches its message.
    func refusal(_ text: String, in folder: Folder, listening: Configuration.Socket? = nil) throws -> ConfigurationError {
        try folder.refusal(text, listening: listening, secrets: [Folder.webhookSecret().text, Self.password])
    }

    @Test func forwardingIsOffByDefault() throws {
        let forward = try ConfigLoader.parse("", file: "t.toml").forward
        #expect(forward == Configuration.Forward())
        #expect(forward.sinks.isEmpty && forward.outbox == "/var/lib/passtap/outbox.sqlite")
        #expect(forward.maxPendingBytes == 67_108_864 && forward.sync == .normal && forward.source == nil && forward.removedSinkKeepHours == 24)
        #expect(try ConfigLoader.parse("[forward]\n", file: "t.toml").forward == Configuration.Forward())
    }

    @Test func aSinkWithOnlyItsRequiredKeysGetsTheDefaults() throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        let text = Self.webhook() + "\n" + Self.postgres().replacingOccurrences(of: "[forward]\n", with: "")
        let forward = try ConfigLoader.parse(text, file: folder.configFile).forward
        let webhook = try #require(forward.webhooks.first)
        #expect(webhook.kinds == [.readResult] && !webhook.includeMessage && webhook.timeoutMilliseconds == 10_000 && webhook.caFile == nil)
        #expect(webhook.secret == Folder.webhookSecret() && webhook.secretFile == folder.path + "/loyalty.secret")
        let postgres = try #require(forward.postgres.first)
        #expect(postgres.port == 5432 && postgres.tls == .verifyFull && postgres.table == "passtap_events")
        #expect(postgres.kinds == [.readResult] && !postgres.includeMessage && postgres.password == nil && postgres.passwordFile == nil)
        #expect(forward.sinks.map(\.name) == ["loyalty", "fleet"])
    }

    @Test func everyForwardKeyIsReadAndPathsAreRelativeToTheConfigFile() throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        try folder.secretFile("fleet.password", contents: Self.password + "\n")
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: folder.path + "/ca.pem", atomically: true, encoding: .utf8)
        let text = """
            [forward]
            outbox = "state/outbox.sqlite"
            max_pending_bytes = 1048576
            sync = "full"
            source = "till-3 (store 12)"
            removed_sink_keep_hours = 0
            [[forward.webhooks]]
            name = "loyalty"
            url = "http://127.0.0.1:8080/taps"
            secret_file = "loyalty.secret"
            ca_file = "ca.pem"
            kinds = ["read.result", "forward.dropped"]
            include_message = true
            timeout_ms = 300000
            [[forward.postgres]]
            name = "fleet_1.a-b"
            host = "/run/postgresql"
            port = 65535
            database = "db"
            user = "till"
            password_file = "\(folder.path)/fleet.password"
            tls = "disable"
            ca_file = "ca.pem"
            table = "_Events_2026"
            kinds = ["reader.added", "backend.down"]
            include_message = false
            """
        let forward = try ConfigLoader.parse(text, file: folder.configFile).forward
        #expect(forward.outbox == folder.path + "/state/outbox.sqlite")
        #expect(forward.maxPendingBytes == 1_048_576 && forward.sync == .full && forward.source == "till-3 (store 12)" && forward.removedSinkKeepHours == 0)
        let webhook = try #require(forward.webhooks.first)
        #expect(webhook.url.absoluteString == "http://127.0.0.1:8080/taps" && webhook.caFile == folder.path + "/ca.pem")
        #expect(webhook.kinds == [.readResult, .forwardDropped] && webhook.includeMessage && webhook.timeoutMilliseconds == 300_000)
        let postgres = try #require(forward.postgres.first)
        #expect(postgres.name == "fleet_1.a-b" && postgres.host == "/run/postgresql" && postgres.port == 65535)
        #expect(postgres.database == "db" && postgres.user == "till" && postgres.tls == .disable && postgres.table == "_Events_2026")
        #expect(postgres.password?.value == Self.password && postgres.passwordFile == folder.path + "/fleet.password")
        #expect(postgres.kinds == [.readerAdded, .backendDown] && postgres.caFile == folder.path + "/ca.pem")
        #expect(forward.storesMessages && forward.wants(.forwardDropped) && !forward.wants(.cardInserted))
        // Nothing prints a secret.
        #expect(!"\(forward)".contains(Self.password) && !"\(forward)".contains(Folder.webhookSecret().text))
    }

    // MARK: url

    @Test(arguments: ["http://127.0.0.1/x", "http://127.200.3.4:9000", "http://[::1]:8080/taps", "http://localhost:8080", "HTTPS://example.com", "https://10.0.0.2/x"])
    func httpsAndLoopbackHTTPAreAccepted(url: String) throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        #expect(try ConfigLoader.parse(Self.webhook(url: url), file: folder.configFile).forward.webhooks.count == 1)
    }

    @Test(arguments: ["http://loyalty.example.com/taps", "http://10.0.0.2/x", "http://128.0.0.1/", "http://127.0.0.1.example.com/", "http://[::2]/"])
    func plainHTTPToAnythingButLoopbackIsRefused(url: String) throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        let error = try refusal(Self.webhook(url: url), in: folder)
        #expect(error.line == 4 && error.keyPath == "forward.webhooks[0].url", "\(error)")
        #expect(error.problem.hasPrefix("webhook loyalty: expected an https:// URL (http:// only to 127.0.0.0/8, [::1] or localhost)"), "\(error)")
        #expect(error.problem.contains("found plain http to"), "\(error)")
    }

    @Test(arguments: ["ftp://example.com/x", "file:///tmp/x", "ws://127.0.0.1/", "example.com/taps", "https://", ""])
    func aURLOfAnotherSchemeOrNoHostIsRefused(url: String) throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        let error = try refusal(Self.webhook(url: url), in: folder)
        #expect(error.keyPath == "forward.webhooks[0].url", "\(error)")
        #expect(error.problem.hasPrefix("webhook loyalty: expected an https:// URL"), "\(error)")
    }

    @Test func aURLWithUserInformationIsRefusedWithoutEchoingIt() throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        let error = try refusal(Self.webhook(url: "https://bob:hunter2@loyalty.example.com/taps"), in: folder)
        #expect(error.line == 4 && error.keyPath == "forward.webhooks[0].url", "\(error)")
        #expect(error.problem.hasPrefix("webhook loyalty: expected a URL without user information"), "\(error)")
        #expect(!error.problem.contains("hunter2") && !error.problem.contains("bob"), "\(error)")
    }

    // MARK: secret and password files

    @Test func aMissingSecretFileKeyOrFileIsRefusedNamingIt() throws {
        let folder = try Folder()
        let noKey = try refusal("[forward]\n[[forward.webhooks]]\nname = \"loyalty\"\nurl = \"https://a.example\"\n", in: folder)
        #expect(noKey.keyPath == "forward.webhooks[0].secret_file" && noKey.line == 2, "\(noKey)")
        #expect(noKey.problem.contains("passtap forward secret --name NAME --out DIR"), "\(noKey)")
        let noFile = try refusal(Self.webhook(), in: folder)
        #expect(noFile.keyPath == "forward.webhooks[0].secret_file" && noFile.line == 5, "\(noFile)")
        #expect(noFile.problem.hasPrefix("webhook loyalty: secret file \(folder.path)/loyalty.secret: cannot open it"), "\(noFile)")
    }

    @Test(arguments: [0o644, 0o604, 0o620] as [mode_t])
    func aSecretOrPasswordFileOthersCanReadIsRefused(mode: mode_t) throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret", mode: mode)
        let error = try refusal(Self.webhook(), in: folder)
        #expect(error.line == 5 && error.keyPath == "forward.webhooks[0].secret_file", "\(error)")
        #expect(error.problem.hasPrefix("webhook loyalty: secret file \(folder.path)/loyalty.secret: mode \(String(mode, radix: 8))"), "\(error)")
        #expect(error.problem.contains("chmod 0600"), "\(error)")
        try folder.secretFile("fleet.password", mode: mode, contents: Self.password)
        let password = try refusal(Self.postgres("password_file = \"fleet.password\""), in: folder)
        #expect(password.line == 7 && password.keyPath == "forward.postgres[0].password_file", "\(password)")
        #expect(password.problem.hasPrefix("postgres fleet: password file \(folder.path)/fleet.password: mode \(String(mode, radix: 8))"), "\(password)")
        let missing = try refusal(Self.postgres("password_file = \"none.password\""), in: folder)
        #expect(missing.problem.hasPrefix("postgres fleet: password file \(folder.path)/none.password: cannot open it"), "\(missing)")
    }

    @Test(.enabled(if: getegid() == 0, "the secret file's group is the daemon's own: root's as these run"))
    func aSecretFileTheSocketsGroupCanReadIsRefusedAtStartAndOnReload() throws {
        let folder = try Folder()
        let file = try folder.secretFile("loyalty.secret", mode: 0o640)
        // Readable by the daemon's own group, which is not the socket's: accepted.
        #expect(try ConfigLoader.parse("[socket]\ngroup = \"daemon\"\n" + Self.webhook(), file: folder.configFile).forward.webhooks.count == 1)
        // Without [socket] group the socket has the daemon's group, so that group may not read it.
        let own = try refusal(Self.webhook(), in: folder)
        #expect(own.problem.contains("and that is the socket's group"), "\(own)")
        // Nor on a reload while the running socket still has the daemon's group.
        var listening = Configuration.Socket()
        listening.group = nil
        let reload = try refusal("[socket]\ngroup = \"daemon\"\n" + Self.webhook(), in: folder, listening: listening)
        #expect(reload.problem.contains("the group of the socket passtapd listens on now"), "\(reload)")
        #expect(chmod(file, 0o600) == 0)
    }

    static let badSecrets: [(contents: String, problem: String)] = [
        ("", "the file is empty"),
        ("\n", "the file is empty"),
        ("hunter2hunter2hunter2hunter2\n", "it does not start with whsec_"),
        ("whsec_not base64!\n", "the part after whsec_ is not that"),
        ("whsec_" + Data(repeating: 7, count: 23).base64EncodedString() + "\n", "the part after whsec_ is not that"),
        ("whsec_" + Data(repeating: 7, count: 65).base64EncodedString() + "\n", "the part after whsec_ is not that"),
    ]

    @Test(arguments: badSecrets)
    func aSecretFileThatIsNoWebhookSecretIsRefused(contents: String, problem: String) throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret", contents: contents)
        let error = try refusal(Self.webhook(), in: folder)
        #expect(error.line == 5 && error.keyPath == "forward.webhooks[0].secret_file", "\(error)")
        #expect(error.problem == "webhook loyalty: secret file \(folder.path)/loyalty.secret: expected \(ForwardSecretFile.webhookExpectation); \(problem)", "\(error)")
    }

    @Test func aSecretFileWithASecondLineOrWindowsLineEndsIsRefused() throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret", contents: Folder.webhookSecret().text + "\r\n")
        #expect(try refusal(Self.webhook(), in: folder).problem.hasSuffix("found a carriage return: write the file with Unix line ends"))
        try folder.secretFile("two.secret", contents: Folder.webhookSecret().text + "\nmore\n")
        let two = try refusal(Self.webhook().replacingOccurrences(of: "loyalty.secret", with: "two.secret"), in: folder)
        #expect(two.problem.hasSuffix("found a second line: the file holds one line"), "\(two)")
    }

    // MARK: names, tables, kinds

    @Test(arguments: ["fleet db", "", "a/b", "flèet", "x\"y", String(repeating: "f", count: 65)])
    func aSinkNameOutsideTheAllowedCharactersIsRefused(name: String) throws {
        let folder = try Folder()
        let text = Self.postgres().replacingOccurrences(of: "name = \"fleet\"", with: "name = \"\(name.replacingOccurrences(of: "\"", with: "\\\""))\"")
        let error = try refusal(text, in: folder)
        #expect(error.line == 3 && error.keyPath == "forward.postgres[0].name", "\(error)")
        #expect(error.problem.hasPrefix("expected a name of 1 to 64 letters, digits, '_', '.' and '-'"), "\(error)")
    }

    @Test func aSinkNameUsedTwiceAcrossBothListsIsRefused() throws {
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        let text = Self.webhook() + "\n" + Self.postgres().replacingOccurrences(of: "[forward]\n", with: "").replacingOccurrences(of: "\"fleet\"", with: "\"loyalty\"")
        let error = try refusal(text, in: folder)
        #expect(error.line == 8 && error.keyPath == "forward.postgres[0].name", "\(error)")
        #expect(error.problem.hasPrefix("sink \"loyalty\" is configured twice (first in [[forward.webhooks]] 1)"), "\(error)")
        let twice = Self.postgres() + "\n[[forward.postgres]]\nname = \"fleet\"\nhost = \"h\"\ndatabase = \"d\"\nuser = \"u\"\n"
        #expect(try refusal(twice, in: folder).keyPath == "forward.postgres[1].name")
    }

    @Test(arguments: ["passtap-events", "1events", "events;drop table x", "public.events", "\"events\"", "", String(repeating: "t", count: 64)])
    func aTableThatIsNoPlainIdentifierIsRefused(table: String) throws {
        let folder = try Folder()
        let error = try refusal(Self.postgres("table = \"\(table.replacingOccurrences(of: "\"", with: "\\\""))\""), in: folder)
        #expect(error.line == 7 && error.keyPath == "forward.postgres[0].table", "\(error)")
        #expect(error.problem.hasPrefix("postgres fleet: expected a plain identifier: a letter or '_', then up to 62 letters, digits or '_'"), "\(error)")
    }

    @Test func anUnknownOrRepeatedKindIsRefusedNamingTheKnownOnes() throws {
        let folder = try Folder()
        let unknown = try refusal(Self.postgres("kinds = [\"read.result\", \"read.results\"]"), in: folder)
        #expect(unknown.line == 7 && unknown.keyPath == "forward.postgres[0].kinds[1]", "\(unknown)")
        #expect(unknown.problem.hasPrefix("sink fleet: expected one of backend.down, backend.up, reader.added"), "\(unknown)")
        #expect(unknown.problem.hasSuffix("found \"read.results\""), "\(unknown)")
        let twice = try refusal(Self.postgres("kinds = [\"read.result\", \"read.result\"]"), in: folder)
        #expect(twice.keyPath == "forward.postgres[0].kinds[1]" && twice.problem == "sink fleet: \"read.result\" is listed twice")
        let empty = try refusal(Self.postgres("kinds = []"), in: folder)
        #expect(empty.keyPath == "forward.postgres[0].kinds" && empty.problem.hasPrefix("sink fleet: expected at least one event kind"))
    }

    // MARK: values

    /// One refused value: the table it goes in, its line, the key path and the problem's start.
    struct BadValue: Sendable, CustomTestStringConvertible {
        let table: String
        let line: String
        let keyPath: String
        let problem: String
        init(_ table: String, _ line: String, _ keyPath: String, _ problem: String) {
            (self.table, self.line, self.keyPath, self.problem) = (table, line, keyPath, problem)
        }
        var testDescription: String { "\(table): \(line)" }
    }

    static let badValues: [BadValue] = [
        .init("forward", "max_pending_bytes = 1048575", "forward.max_pending_bytes", "expected an integer from 1048576 to 1099511627776, found 1048575"),
        .init("forward", "removed_sink_keep_hours = -1", "forward.removed_sink_keep_hours", "expected an integer from 0 to 8760, found -1"),
        .init("forward", "sync = \"always\"", "forward.sync", "expected \"normal\" (survives kill -9) or \"full\" (also survives power loss), found \"always\""),
        .init("forward", "source = \"\"", "forward.source", "expected this till's name in forwarded events"),
        .init("forward", "source = \"till\\u001b[2J\"", "forward.source", "expected this till's name in forwarded events"),
        .init("forward", "outbox = \"\"", "forward.outbox", "expected the path of the outbox's SQLite file"),
        .init("postgres", "port = 0", "forward.postgres[0].port", "expected an integer from 1 to 65535, found 0"),
        .init("postgres", "port = 65536", "forward.postgres[0].port", "expected an integer from 1 to 65535, found 65536"),
        .init("postgres", "tls = \"prefer\"", "forward.postgres[0].tls", "postgres fleet: expected \"disable\", \"require\" or \"verify-full\""),
        .init("postgres", "ca_file = \"nowhere.pem\"", "forward.postgres[0].ca_file", "postgres fleet: expected a readable PEM file of CA certificates, found none at"),
        .init("webhook", "timeout_ms = 99", "forward.webhooks[0].timeout_ms", "expected an integer from 100 to 300000, found 99"),
        .init("webhook", "timeout_ms = 300001", "forward.webhooks[0].timeout_ms", "expected an integer from 100 to 300000, found 300001"),
        .init("webhook", "ca_file = \".\"", "forward.webhooks[0].ca_file", "webhook loyalty: expected a readable PEM file of CA certificates"),
        .init("webhook", "include_message = \"yes\"", "forward.webhooks[0].include_message", "expected true or false, found a string"),
    ]

    @Test(arguments: badValues)
    func aValueOutOfRangeOrUnknownIsRefusedNamingTheKey(bad: BadValue) throws {
        let (table, line, keyPath, problem) = (bad.table, bad.line, bad.keyPath, bad.problem)
        let folder = try Folder()
        try folder.secretFile("loyalty.secret")
        let text: String
        switch table {
        case "forward": text = "[forward]\n\(line)\n"
        case "postgres": text = Self.postgres(line)
        default: text = Self.webhook(line)
        }
        let error = try refusal(text, in: folder)
        #expect(error.keyPath == keyPath && error.line == text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == line }.map { $0 + 1 }, "\(error)")
        #expect(error.problem.hasPrefix(problem), "\(error)")
    }

    @Test func unknownKeysAreRefusedInForwardAndInEachSinkBeforeAnyFileIsRead() throws {
        let folder = try Folder()
        let inForward = try refusal("[forward]\noutbox_path = \"x\"\n", in: folder)
        #expect(inForward.line == 2 && inForward.keyPath == "forward.outbox_path", "\(inForward)")
        #expect(inForward.problem.hasPrefix("unknown key; [forward] takes: "), "\(inForward)")
        // The secret file does not exist: the misspelt key is still what is named.
        let inSink = try refusal(Self.webhook("secret = \"whsec_x\""), in: folder)
        #expect(inSink.line == 6 && inSink.keyPath == "forward.webhooks[0].secret", "\(inSink)")
        #expect(inSink.problem.hasPrefix("sink loyalty: unknown key; [forward.webhooks[0]] takes: "), "\(inSink)")
        let inPostgres = try refusal(Self.postgres("password = \"x\""), in: folder)
        #expect(inPostgres.keyPath == "forward.postgres[0].password", "\(inPostgres)")
        let notTables = try refusal("[forward]\nwebhooks = [\"loyalty\"]\n", in: folder)
        #expect(notTables.keyPath == "forward.webhooks[0]" && notTables.problem == "expected a table, found a string", "\(notTables)")
    }

    @Test func aPostgresSinkWithoutHostDatabaseOrUserIsRefused() throws {
        let folder = try Folder()
        for key in ["host", "database", "user"] {
            let text = Self.postgres().split(separator: "\n").filter { !$0.hasPrefix("\(key) =") }.joined(separator: "\n")
            let error = try refusal(text, in: folder)
            #expect(error.keyPath == "forward.postgres[0].\(key)" && error.problem.hasPrefix("postgres fleet: expected "), "\(error)")
        }
    }
}
