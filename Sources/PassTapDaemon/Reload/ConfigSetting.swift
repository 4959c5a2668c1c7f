public import MetricsSettings
public import ForwardSettings
public import WebSettings
public import PassTapCore

/// One setting of `passtapd.toml` as a reload compares it: its config key name, whether two
/// configurations differ in it, and (for a restart-only setting) how to keep the running value.
public struct ConfigSetting: Sendable {
    /// The config key, as the file and `config.reloaded` name it (`socket.path`, `vas.merchants`).
    public let key: String
    /// Whether `old` and `new` differ in this setting.
    public let differs: @Sendable (_ old: Configuration, _ new: Configuration) -> Bool
    /// Copies the setting's value from `old` into `new` (so the running value stays).
    let keep: @Sendable (_ new: inout Configuration, _ old: Configuration) -> Void

    /// The setting at `path`.
    init<Value: Equatable & Sendable>(_ key: String, _ path: any WritableKeyPath<Configuration, Value> & Sendable) {
        self.key = key
        differs = { old, new in old[keyPath: path] != new[keyPath: path] }
        keep = { new, old in new[keyPath: path] = old[keyPath: path] }
    }

    /// A setting compared by `differs` (a reloadable one: nothing is kept).
    init(_ key: String, differs: @escaping @Sendable (Configuration, Configuration) -> Bool) {
        self.key = key
        self.differs = differs
        keep = { _, _ in }
    }
}

extension ConfigSetting {
    /// The settings only a restart can change: a reload names each one that differs (log and
    /// `config.reloaded`'s `restart_required`) and keeps running with the old value.
    ///
    /// One row per setting; a new restart-only setting is one more line here.
    public static let restartOnly: [ConfigSetting] = [
        ConfigSetting("socket.path", \.socket.path),
        ConfigSetting("socket.mode", \.socket.mode),
        ConfigSetting("socket.group", \.socket.group),
        ConfigSetting("socket.max_clients", \.socket.maxClients),
        ConfigSetting("metrics.listen", \.metrics.listen),
        ConfigSetting("metrics.max_connections", \.metrics.maxConnections),
        ConfigSetting("web.listen", \.web.listen),
        ConfigSetting("web.max_clients", \.web.maxClients),
        // The outbox's SQLite file is opened once, at start.
        ConfigSetting("forward.outbox", \.forward.outbox),
    ]

    /// The settings a reload puts in force, in the order `config.reloaded`'s `changed` lists them.
    public static let reloadable: [ConfigSetting] = [
        ConfigSetting("log.level", \.logLevel),
        ConfigSetting("access", \.access),
        ConfigSetting("socket.allow_transmit", \.socket.allowTransmit),
        ConfigSetting("socket.max_clients_per_uid", \.socket.maxClientsPerUID),
        ConfigSetting("socket.idle_timeout_ms", \.socket.idleTimeoutMilliseconds),
        ConfigSetting("socket.vas_reads_per_uid", \.socket.vasReadsPerUID),
        ConfigSetting("events.buffer", \.events.buffer),
        ConfigSetting("events.buffer_bytes", \.events.bufferBytes),
        ConfigSetting("events.client_queue", \.events.clientQueue),
        ConfigSetting("session.aids", \.aids),
        ConfigSetting("session.ppse", \.ppse),
        ConfigSetting("session.budget_ms", \.sessionBudgetMilliseconds),
        ConfigSetting("reader", \.readerOverrides),
        ConfigSetting("vas.enabled", \.vas.enabled),
        ConfigSetting("vas.mode", \.vas.mode),
        ConfigSetting("vas.order", \.vas.order),
        ConfigSetting("vas.stop_on_first_pass", \.vas.stopOnFirstPass),
        ConfigSetting("vas.freshness_s", \.vas.freshnessSeconds),
        ConfigSetting("vas.publish_stale", \.vas.publishStale),
        ConfigSetting("vas.merchants", \.vas.merchants),
        ConfigSetting("smarttap.enabled", \.smartTap.enabled),
        ConfigSetting("smarttap.collector_id", differs: { $0.smartTap.collectorID != $1.smartTap.collectorID }),
        ConfigSetting("smarttap.key_version", differs: { $0.smartTap.keyVersion != $1.smartTap.keyVersion }),
        // The key file is read again on every reload: a new key in the same file is a change.
        ConfigSetting("smarttap.key", differs: { $0.smartTap.keyPath != $1.smartTap.keyPath || $0.smartTap.publicKeyPEM != $1.smartTap.publicKeyPEM }),
        ConfigSetting("ndef.enabled", \.ndef.enabled),
        ConfigSetting("pcsc", differs: { $0.section(.pcsc) != $1.section(.pcsc) }),
        ConfigSetting("libnfc", differs: { $0.section(.nfc) != $1.section(.nfc) || $0.libnfc != $1.libnfc }),
        // The token files are read again on every reload: a new secret in the same file is a change.
        ConfigSetting("web.tokens", \.web.tokens),
        ConfigSetting("web.max_clients_per_token", \.web.maxClientsPerToken),
        ConfigSetting("web.max_pending_per_uid", \.web.maxPendingPerUID),
        ConfigSetting("web.vas_reads_per_token", \.web.vasReadsPerToken),
        ConfigSetting("web.idle_timeout_ms", \.web.idleTimeoutMilliseconds),
        ConfigSetting("web.auth_timeout_ms", \.web.authTimeoutMilliseconds),
        ConfigSetting("web.auth_failures_per_origin", \.web.authFailuresPerOrigin),
        ConfigSetting("web.auth_failures_total", \.web.authFailuresTotal),
        ConfigSetting("forward.max_pending_bytes", \.forward.maxPendingBytes),
        ConfigSetting("forward.sync", \.forward.sync),
        ConfigSetting("forward.source", \.forward.source),
        ConfigSetting("forward.removed_sink_keep_hours", \.forward.removedSinkKeepHours),
        // Secret and password files are read again on every reload: a new secret is a change.
        ConfigSetting("forward.webhooks", \.forward.webhooks),
        ConfigSetting("forward.postgres", \.forward.postgres),
    ]
}
