public import ConfigKit
public import PassTapCore

extension ConfigLoader {
    /// Every key `passtapd.toml` takes, dotted from the file's root (`socket.path`,
    /// `vas.merchants.url`): the core tables', then each feature section's, in ``sections``
    /// order. `Config/passtapd.toml`, `man/passtapd.toml.5`, docs/configuration.md ("Every key")
    /// and `passtapd --help` list the same keys (docs/architecture.md, "Feature slices").
    public static let keys: [String] = coreKeys + sections.flatMap { $0.keys }

    /// The keys of the core tables, which this loader reads itself.
    static let coreKeys = [
        "socket.path", "socket.mode", "socket.group", "socket.max_clients", "socket.max_clients_per_uid",
        "socket.idle_timeout_ms", "socket.vas_reads_per_uid", "socket.allow_transmit",
        "access.observe", "access.read", "access.transmit", "access.manage",
        "events.buffer", "events.buffer_bytes", "events.client_queue",
        "log.level",
        "pcsc.enabled", "pcsc.readers",
        "libnfc.enabled", "libnfc.devices", "libnfc.poll_interval_ms", "libnfc.rearm_ms", "libnfc.ecp",
        "libnfc.ecp_frame",
        "session.aids", "session.ppse", "session.budget_ms",
        "reader.match", "reader.aids",
        "ndef.enabled",
        "vas.enabled", "vas.mode", "vas.order", "vas.stop_on_first_pass", "vas.freshness_s",
        "vas.publish_stale",
        "vas.merchants.pass_type_id", "vas.merchants.keys", "vas.merchants.url", "vas.merchants.filter",
        "smarttap.enabled", "smarttap.collector_id", "smarttap.key_version", "smarttap.key",
    ]

    /// Every setting a reload compares, in the order `config.reloaded` lists them (`changed`,
    /// then `restart_required`, each keeps this order): the core tables' rows, then each
    /// feature section's, in ``sections`` order. Each row is declared once, by the table that
    /// reads it (docs/architecture.md, "Feature slices").
    public static let settings: [ConfigSetting] = coreSettings + sections.flatMap { $0.settings }

    /// `[log]`, `[access]`, `[socket]`, `[events]`, `[session]`, `[[reader]]`, `[vas]`,
    /// `[smarttap]`, `[ndef]`, `[pcsc]` and `[libnfc]`.
    static let coreSettings: [ConfigSetting] = [
        // The Unix socket is bound once, at start.
        .restartOnly("socket.path", \.socket.path),
        .restartOnly("socket.mode", \.socket.mode),
        .restartOnly("socket.group", \.socket.group),
        .restartOnly("socket.max_clients", \.socket.maxClients),
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
        ConfigSetting(
            "smarttap.key",
            differs: { $0.smartTap.keyPath != $1.smartTap.keyPath || $0.smartTap.publicKeyPEM != $1.smartTap.publicKeyPEM }),
        ConfigSetting("ndef.enabled", \.ndef.enabled),
        // A change restarts that backend (`ReloadPlan.backendDiffers`).
        ConfigSetting("pcsc", differs: { $0.section(.pcsc) != $1.section(.pcsc) }),
        ConfigSetting("libnfc", differs: { $0.section(.nfc) != $1.section(.nfc) || $0.libnfc != $1.libnfc }),
    ]
}

extension ConfigSetting {
    /// The settings only a restart can change, in ``ConfigLoader/settings`` order: a reload names
    /// each one that differs (log and `config.reloaded`'s `restart_required`) and keeps running
    /// with the old value.
    public static let restartOnly: [ConfigSetting] = ConfigLoader.settings.filter(\.requiresRestart)

    /// The settings a reload puts in force, in the order `config.reloaded`'s `changed` lists them.
    public static let reloadable: [ConfigSetting] = ConfigLoader.settings.filter { !$0.requiresRestart }
}
