public import PassTapCore
public import Foundation

extension Configuration {
    /// `[forward]`: the durable outbox on this till and the sinks it delivers to, each at least
    /// once and in outbox order. No sink (the default): nothing is stored and nothing is sent.
    ///
    /// `outbox` is restart-only; the sinks, `max_pending_bytes`, `sync`, `source` and
    /// `removed_sink_keep_hours` are reloadable.
    public struct Forward: FeatureSettings {
        /// `outbox`: the SQLite file of pending events (the unit's `StateDirectory`, mode 0700).
        /// A relative path is resolved from the config file's folder. Restart-only.
        public var outbox: String = "/var/lib/passtap/outbox.sqlite"
        /// `max_pending_bytes`: how many bytes of events the outbox holds at most; when full, the
        /// oldest go, counted and announced with `forward.dropped`.
        public var maxPendingBytes: Int = 64 * 1024 * 1024
        /// `sync`: how hard each commit is made durable.
        public var sync: ForwardSync = .normal
        /// `source`: this till's name in every forwarded event; `nil` (the default) is the host name.
        public var source: String? = nil
        /// `removed_sink_keep_hours`: how long a sink removed from the config keeps its backlog
        /// before it is dropped with `forward.dropped` (0: at once).
        public var removedSinkKeepHours: Int = 24
        /// `[[forward.webhooks]]`, in file order.
        public var webhooks: [ForwardWebhook] = []
        /// `[[forward.postgres]]`, in file order.
        public var postgres: [ForwardPostgres] = []

        /// The defaults of the shipped config (no sink).
        public init() {}

        /// Every sink's name, kinds and message policy, webhooks first, each in file order. Names
        /// are unique across both lists (the loader refuses a repeated one).
        public var sinks: [ForwardSinkSettings] { sinkConfigurations.map(\.settings) }

        /// Every sink's whole configuration, in the order of ``sinks``.
        public var sinkConfigurations: [ForwardSinkConfiguration] {
            webhooks.map(ForwardSinkConfiguration.webhook) + postgres.map(ForwardSinkConfiguration.postgres)
        }

        /// Whether any sink wants events of `kind` (an event no sink wants is not stored).
        public func wants(_ kind: EventKind) -> Bool {
            webhooks.contains { $0.kinds.contains(kind) } || postgres.contains { $0.kinds.contains(kind) }
        }

        /// Whether some sink has `include_message = true`: only then is an event's full line
        /// (decrypted pass messages included) stored in the outbox.
        public var storesMessages: Bool {
            webhooks.contains(where: \.includeMessage) || postgres.contains(where: \.includeMessage)
        }
    }

    /// `[forward] sync`: SQLite's `synchronous` setting for the outbox (write-ahead log).
    public enum ForwardSync: String, Sendable, Hashable, CaseIterable {
        /// A committed event survives `kill -9` of the daemon.
        case normal
        /// It also survives a power loss (one fsync per commit).
        case full
    }

    /// What every sink has, whatever its type.
    public struct ForwardSinkSettings: Sendable, Hashable {
        /// The sink's type, by its config table.
        public enum SinkType: String, Sendable, Hashable, Codable {
            case webhook
            case postgres
        }

        /// `name`: unique across `[[forward.webhooks]]` and `[[forward.postgres]]`.
        public var name: String
        /// Which table it came from.
        public var type: SinkType
        /// `kinds`: the event kinds it delivers.
        public var kinds: Set<EventKind>
        /// `include_message`: whether decrypted pass messages leave the till through it.
        public var includeMessage: Bool

        public init(name: String, type: SinkType, kinds: Set<EventKind>, includeMessage: Bool) {
            self.name = name
            self.type = type
            self.kinds = kinds
            self.includeMessage = includeMessage
        }
    }

    /// One sink's whole configuration: what the forwarder makes a sink from, and compares on a
    /// reload (a sink whose configuration changed is made again, keeping its cursor).
    public enum ForwardSinkConfiguration: Sendable, Hashable {
        case webhook(ForwardWebhook)
        case postgres(ForwardPostgres)

        /// Its name, type, kinds and message policy.
        public var settings: ForwardSinkSettings {
            switch self {
            case .webhook(let webhook):
                return ForwardSinkSettings(name: webhook.name, type: .webhook, kinds: webhook.kinds, includeMessage: webhook.includeMessage)
            case .postgres(let postgres):
                return ForwardSinkSettings(name: postgres.name, type: .postgres, kinds: postgres.kinds, includeMessage: postgres.includeMessage)
            }
        }
    }

    /// One `[[forward.webhooks]]` entry: an HTTPS endpoint that gets one signed POST per event
    /// (Standard Webhooks).
    public struct ForwardWebhook: Sendable, Hashable {
        /// `name`: what logs, `forward.status` and the metrics call it.
        public var name: String
        /// `url`: `https://`, or `http://` to a loopback address only.
        public var url: URL
        /// `secret_file`: where the secret was read from (checked as key files are).
        public var secretFile: String
        /// The secret read from `secret_file`.
        public var secret: WebhookSecret
        /// `ca_file`: a PEM file of certificates trusted besides the system's; `nil`: the system's only.
        public var caFile: String?
        /// `kinds`: the event kinds sent. Default `["read.result"]`.
        public var kinds: Set<EventKind>
        /// `include_message`: whether decrypted pass messages are sent. Default `false`.
        public var includeMessage: Bool
        /// `timeout_ms`: how long one request may take, connecting included. Default 10 000.
        public var timeoutMilliseconds: Int

        public init(
            name: String, url: URL, secretFile: String, secret: WebhookSecret, caFile: String? = nil,
            kinds: Set<EventKind> = [.readResult], includeMessage: Bool = false, timeoutMilliseconds: Int = 10_000
        ) {
            self.name = name
            self.url = url
            self.secretFile = secretFile
            self.secret = secret
            self.caFile = caFile
            self.kinds = kinds
            self.includeMessage = includeMessage
            self.timeoutMilliseconds = timeoutMilliseconds
        }
    }

    /// One `[[forward.postgres]]` entry: a PostgreSQL table that gets one row per event.
    public struct ForwardPostgres: Sendable, Hashable {
        /// `name`: what logs, `forward.status` and the metrics call it.
        public var name: String
        /// `host`: a host name or address, or (starting with `/`) a Unix socket directory.
        public var host: String
        /// `port`: default 5432.
        public var port: Int
        /// `database`.
        public var database: String
        /// `user`.
        public var user: String
        /// `password_file`: where the password was read from; `nil`: no password.
        public var passwordFile: String?
        /// The password read from `password_file`.
        public var password: ForwardSecretText?
        /// `tls`: libpq's `sslmode` names and meanings. Default `verify-full`.
        public var tls: PostgresTLS
        /// `ca_file`: a PEM file of certificates trusted besides the system's.
        public var caFile: String?
        /// `table`: a plain identifier (letters, digits, `_`; not starting with a digit). Default
        /// `passtap_events`.
        public var table: String
        /// `kinds`: the event kinds stored. Default `["read.result"]`.
        public var kinds: Set<EventKind>
        /// `include_message`: whether decrypted pass messages are stored. Default `false`.
        public var includeMessage: Bool

        public init(
            name: String, host: String, port: Int = 5432, database: String, user: String, passwordFile: String? = nil,
            password: ForwardSecretText? = nil, tls: PostgresTLS = .verifyFull, caFile: String? = nil,
            table: String = "passtap_events", kinds: Set<EventKind> = [.readResult], includeMessage: Bool = false
        ) {
            self.name = name
            self.host = host
            self.port = port
            self.database = database
            self.user = user
            self.passwordFile = passwordFile
            self.password = password
            self.tls = tls
            self.caFile = caFile
            self.table = table
            self.kinds = kinds
            self.includeMessage = includeMessage
        }
    }

    /// `[[forward.postgres]] tls`, with libpq's `sslmode` meanings.
    public enum PostgresTLS: String, Sendable, Hashable, CaseIterable {
        /// No TLS (a Unix socket, or a private network).
        case disable
        /// TLS, without checking the server's certificate.
        case require
        /// TLS, with the certificate checked against the trusted CAs and `host`.
        case verifyFull = "verify-full"
    }
}

/// A webhook's signing secret: the bytes a Standard Webhooks secret (`whsec_` and base64) stands
/// for. Its description never shows it.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key HMAC-SHA256 signs with (the base64 part, decoded).
    public let key: [UInt8]

    /// The secret a `whsec_...` line stands for; `nil` when `text` is not one (no prefix, bad
    /// base64, or fewer than 24 bytes, as the Standard Webhooks libraries require).
    public init?(text: String) {
        guard text.hasPrefix(Self.prefix),
            let decoded = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
            decoded.count >= Self.minimumBytes, decoded.count <= Self.maximumBytes
        else { return nil }
        key = Array(decoded)
    }

    /// A secret of these bytes (tests, `passtap forward secret`).
    public init(key: [UInt8]) {
        self.key = key
    }

    /// The `whsec_...` line of this secret, as a secret file holds it.
    public var text: String { Self.prefix + Data(key).base64EncodedString() }

    /// `whsec_`.
    public static let prefix = "whsec_"
    /// 24 bytes (192 bits), the least the Standard Webhooks libraries accept.
    public static let minimumBytes = 24
    /// 64 bytes (512 bits), the most they accept.
    public static let maximumBytes = 64

    public var description: String { "WebhookSecret(\(key.count) bytes)" }
    public var debugDescription: String { description }
}

/// A secret read from a file (a database password): its description never shows it.
public struct ForwardSecretText: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "(secret)" }
    public var debugDescription: String { description }
}

extension Configuration {
    /// `[forward]`, kept in ``Configuration/features`` (its defaults when the file has no such table).
    public var forward: Forward {
        get { self[Forward.self] }
        set { self[Forward.self] = newValue }
    }
}
