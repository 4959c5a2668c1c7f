package import ConfigKit
import Foundation
import ISO7816
public import PassTapCore
package import Wallets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `[forward]`: the outbox and its sinks' tables (docs/configuration.md, "[forward]").
package enum ForwardSection: ConfigSection {
    package static let table = "forward"
    package static let opensFiles = true
    package static let keys = [
        "forward.outbox", "forward.max_pending_bytes", "forward.sync", "forward.source",
        "forward.removed_sink_keep_hours",
        "forward.webhooks.name", "forward.webhooks.url", "forward.webhooks.secret_file",
        "forward.webhooks.ca_file", "forward.webhooks.kinds", "forward.webhooks.include_message",
        "forward.webhooks.timeout_ms",
        "forward.postgres.name", "forward.postgres.host", "forward.postgres.port",
        "forward.postgres.database", "forward.postgres.user", "forward.postgres.password_file",
        "forward.postgres.tls", "forward.postgres.ca_file", "forward.postgres.table",
        "forward.postgres.kinds", "forward.postgres.include_message",
    ]
    /// The outbox is opened once, at start; the rest a reload puts in force.
    package static let settings: [ConfigSetting] = [
        // The outbox's SQLite file is opened once, at start.
        .restartOnly("forward.outbox", \.forward.outbox),
        ConfigSetting("forward.max_pending_bytes", \.forward.maxPendingBytes),
        ConfigSetting("forward.sync", \.forward.sync),
        ConfigSetting("forward.source", \.forward.source),
        ConfigSetting("forward.removed_sink_keep_hours", \.forward.removedSinkKeepHours),
        // Secret and password files are read again on every reload: a new secret is a change.
        ConfigSetting("forward.webhooks", \.forward.webhooks),
        ConfigSetting("forward.postgres", \.forward.postgres),
    ]

    /// Reads `[forward]`.
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        configuration.forward = try readForward(&table, keyPolicy: context.keyPolicy)
    }

    /// The most sinks one of `[[forward.webhooks]]` and `[[forward.postgres]]` may list.
    static let maximumForwardSinks = 16
    /// The smallest `max_pending_bytes`: room for a few of the largest events the socket carries.
    static let minimumPendingBytes = 1024 * 1024
    /// What a sink's `name` must be.
    static let sinkNameExpectation = "a name of 1 to 64 letters, digits, '_', '.' and '-'"
    /// What a PostgreSQL `table` must be.
    static let tableExpectation = "a plain identifier: a letter or '_', then up to 62 letters, digits or '_'"

    /// `[forward]`, `[[forward.webhooks]]` and `[[forward.postgres]]`, with every secret and
    /// password file read and checked with `keyPolicy` (the merchant key file rules).
    static func readForward(_ table: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.Forward {
        var forward = Configuration.Forward()
        if let outbox = try table.string("outbox") {
            guard !outbox.isEmpty else { throw table.error("outbox", "expected the path of the outbox's SQLite file, found an empty string") }
            forward.outbox = ConfigPaths.resolve(outbox, relativeTo: table.file)
        }
        forward.maxPendingBytes = try table.integer("max_pending_bytes", in: minimumPendingBytes...(1 << 40)) ?? forward.maxPendingBytes
        if let sync = try table.string("sync") {
            guard let parsed = Configuration.ForwardSync(rawValue: sync) else {
                throw table.error("sync", "expected \"normal\" (survives kill -9) or \"full\" (also survives power loss), found \"\(sync)\"")
            }
            forward.sync = parsed
        }
        if let source = try table.string("source") {
            guard isPrintableName(source) else {
                throw table.error(
                    "source",
                    "expected this till's name in forwarded events: 1 to 255 bytes without control or bidirectional characters, found \(UntrustedText.quoted(source)); remove the key to use the host name")
            }
            forward.source = source
        }
        forward.removedSinkKeepHours = try table.integer("removed_sink_keep_hours", in: 0...8760) ?? forward.removedSinkKeepHours
        // A misspelt key is reported before any secret file is opened.
        table.declare("webhooks", "postgres")
        try table.rejectUnknownKeys()
        var names: [String: String] = [:]
        for (index, element) in try table.arrayOfTables("webhooks", maximum: maximumForwardSinks, what: "[[forward.webhooks]] sinks").enumerated() {
            var entry = element
            let webhook = try webhook(&entry, keyPolicy: keyPolicy)
            try claim(webhook.name, "[[forward.webhooks]] \(index + 1)", in: &names, entry: entry)
            forward.webhooks.append(webhook)
        }
        for (index, element) in try table.arrayOfTables("postgres", maximum: maximumForwardSinks, what: "[[forward.postgres]] sinks").enumerated() {
            var entry = element
            let postgres = try postgres(&entry, keyPolicy: keyPolicy)
            try claim(postgres.name, "[[forward.postgres]] \(index + 1)", in: &names, entry: entry)
            forward.postgres.append(postgres)
        }
        return forward
    }

    /// Records a sink's name, refusing one another sink of either list already has.
    private static func claim(_ name: String, _ place: String, in names: inout [String: String], entry: TableReader) throws(ConfigurationError) {
        if let first = names[name] {
            throw entry.error("name", "sink \"\(name)\" is configured twice (first in \(first)): give each sink its own name, unique across webhooks and postgres")
        }
        names[name] = place
    }

    private static func webhook(_ entry: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.ForwardWebhook {
        let name = try sinkName(&entry, table: "[[forward.webhooks]]", keys: "url", "secret_file", "ca_file", "kinds", "include_message", "timeout_ms")
        guard let text = try entry.string("url") else {
            throw entry.error("url", "webhook \(name): expected the endpoint's URL, such as \"https://loyalty.example.com/passtap/taps\"")
        }
        let url = try webhookURL(text, entry: entry, sink: name)
        let kinds = try sinkKinds(&entry, sink: name)
        let includeMessage = try entry.bool("include_message") ?? false
        let timeout = try entry.integer("timeout_ms", in: 100...300_000) ?? 10_000
        let caFile = try caFile(&entry, sink: "webhook \(name)")
        guard let path = try entry.string("secret_file") else {
            throw entry.error("secret_file", "webhook \(name): expected the path of its signing secret (passtap forward secret --name NAME --out DIR writes one)")
        }
        let full = ConfigPaths.resolve(path, relativeTo: entry.file)
        let secret: WebhookSecret
        do {
            secret = try ForwardSecretFile.readWebhookSecret(path: full, policy: keyPolicy)
        } catch {
            throw entry.error("secret_file", "webhook \(name): secret file \(error.description)")
        }
        return Configuration.ForwardWebhook(
            name: name, url: url, secretFile: full, secret: secret, caFile: caFile, kinds: kinds, includeMessage: includeMessage,
            timeoutMilliseconds: timeout)
    }

    private static func postgres(_ entry: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.ForwardPostgres {
        let name = try sinkName(
            &entry, table: "[[forward.postgres]]",
            keys: "host", "port", "database", "user", "password_file", "tls", "ca_file", "table", "kinds", "include_message")
        func required(_ key: String, _ what: String) throws(ConfigurationError) -> String {
            guard let value = try entry.string(key), !value.isEmpty else {
                throw entry.error(key, "postgres \(name): expected \(what)")
            }
            return value
        }
        let host = try required("host", "the server's host name or address, or a Unix socket directory such as /run/postgresql")
        let port = try entry.integer("port", in: 1...65_535) ?? 5432
        let database = try required("database", "the database's name, such as \"passtap\"")
        let user = try required("user", "the user to connect as, such as \"passtap\"")
        var tls = Configuration.PostgresTLS.verifyFull
        if let text = try entry.string("tls") {
            guard let parsed = Configuration.PostgresTLS(rawValue: text) else {
                throw entry.error("tls", "postgres \(name): expected \"disable\", \"require\" or \"verify-full\" (libpq's sslmode names), found \"\(text)\"")
            }
            tls = parsed
        }
        let tableName = try entry.string("table") ?? "passtap_events"
        guard isPlainIdentifier(tableName) else {
            throw entry.error("table", "postgres \(name): expected \(tableExpectation), found \(UntrustedText.quoted(tableName))")
        }
        let kinds = try sinkKinds(&entry, sink: name)
        let includeMessage = try entry.bool("include_message") ?? false
        let caFile = try caFile(&entry, sink: "postgres \(name)")
        var passwordFile: String?
        var password: ForwardSecretText?
        if let path = try entry.string("password_file") {
            let full = ConfigPaths.resolve(path, relativeTo: entry.file)
            do {
                password = try ForwardSecretFile.readPassword(path: full, policy: keyPolicy)
            } catch {
                throw entry.error("password_file", "postgres \(name): password file \(error.description)")
            }
            passwordFile = full
        }
        return Configuration.ForwardPostgres(
            name: name, host: host, port: port, database: database, user: user, passwordFile: passwordFile, password: password, tls: tls,
            caFile: caFile, table: tableName, kinds: kinds, includeMessage: includeMessage)
    }

    /// The sink's `name`, after refusing keys `keys` (and `name`) do not cover.
    private static func sinkName(_ entry: inout TableReader, table: String, keys: String...) throws(ConfigurationError) -> String {
        let given = try entry.string("name")
        for key in keys { entry.declare(key) }
        try entry.rejectUnknownKeys(context: given.map { "sink \($0): " } ?? "")
        guard let name = given else {
            throw entry.error("name", "every \(table) needs a name (such as \"loyalty\"): logs, forward.status and metrics call the sink by it")
        }
        guard isSinkName(name) else {
            throw entry.error("name", "expected \(sinkNameExpectation), found \(UntrustedText.quoted(name))")
        }
        return name
    }

    /// `kinds`: event kind names, default `["read.result"]`.
    private static func sinkKinds(_ entry: inout TableReader, sink name: String) throws(ConfigurationError) -> Set<EventKind> {
        guard let texts = try entry.strings("kinds") else { return [.readResult] }
        guard !texts.isEmpty else {
            throw entry.error("kinds", "sink \(name): expected at least one event kind; remove the sink to send nothing")
        }
        var kinds = Set<EventKind>()
        for (offset, text) in texts.enumerated() {
            guard let kind = EventKind(rawValue: text) else {
                let names = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw entry.error("kinds", element: offset, "sink \(name): expected one of \(names), found \(UntrustedText.quoted(text))")
            }
            guard kinds.insert(kind).inserted else {
                throw entry.error("kinds", element: offset, "sink \(name): \"\(text)\" is listed twice")
            }
        }
        return kinds
    }

    /// `ca_file`, resolved; it must be a regular file passtapd can read (it is no secret).
    private static func caFile(_ entry: inout TableReader, sink: String) throws(ConfigurationError) -> String? {
        guard let path = try entry.string("ca_file") else { return nil }
        let full = ConfigPaths.resolve(path, relativeTo: entry.file)
        var info = stat()
        guard stat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(full, R_OK) == 0 else {
            throw entry.error("ca_file", "\(sink): expected a readable PEM file of CA certificates, found none at \(full) (or it cannot be read)")
        }
        return full
    }

    /// A webhook's `url`: `https://`, or `http://` to a loopback address; never user information.
    /// Its errors show only scheme, host and port (``URLQuote``): the path or query may hold a
    /// secret, and a rejected reload's error goes to every `observe` subscriber.
    private static func webhookURL(_ text: String, entry: TableReader, sink name: String) throws(ConfigurationError) -> URL {
        let expected = "webhook \(name): expected an https:// URL (http:// only to 127.0.0.0/8, [::1] or localhost)"
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw entry.error("url", "\(expected), found \(URLQuote.origin(of: text))")
        }
        guard scheme == "https" || scheme == "http" else {
            throw entry.error("url", "\(expected), found the scheme \"\(scheme)\" in \(URLQuote.origin(of: text))")
        }
        guard url.user == nil, url.password == nil else {
            throw entry.error("url", "webhook \(name): expected a URL without user information (user@ or user:password@): requests are signed with secret_file, found \(URLQuote.origin(of: text))")
        }
        guard scheme == "https" || ConfigPaths.isLoopbackHost(host) else {
            throw entry.error(
                "url", "\(expected), found plain http to \(host): events would cross the network unencrypted; use https:// (with ca_file for a private CA)")
        }
        return url
    }

    /// `[A-Za-z0-9_.-]{1,64}`.
    static func isSinkName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// `^[A-Za-z_][A-Za-z0-9_]{0,62}$`: a table name PostgreSQL takes unquoted.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, (1...63).contains(name.utf8.count) else { return false }
        guard first == UInt8(ascii: "_") || (first.isASCIILetterOrDigit && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)) else { return false }
        return name.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "_") }
    }

    /// 1 to 255 bytes, none a control or bidirectional character (``UntrustedText/mustEscape(_:)``).
    private static func isPrintableName(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count) && !text.unicodeScalars.contains(where: UntrustedText.mustEscape)
    }
}

extension UInt8 {
    /// `A-Z`, `a-z` or `0-9`.
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
