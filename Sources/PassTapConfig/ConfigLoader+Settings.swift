public import ConfigKit
public import PassTapCore
import NDEFSettings
import SmartTapSettings
import VASSettings

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
    ]

    /// Every setting a reload compares, in the order `config.reloaded` lists them (`changed`,
    /// then `restart_required`, each keeps this order): the core tables' rows, the rows of the
    /// tables a tap reads with (``tapSections``), the backends' rows, then every other feature
    /// section's, in ``sections`` order. Each row is declared once, by the table that reads it
    /// (docs/architecture.md, "Feature slices").
    public static let settings: [ConfigSetting] =
        coreSettings + tapSections.flatMap { $0.settings } + backendSettings
        + sections.filter { section in !tapSections.contains { ObjectIdentifier($0) == ObjectIdentifier(section) } }
            .flatMap { $0.settings }

    /// The feature tables a tap reads with, in the order of their rows: `config.reloaded` has
    /// always listed them after `[[reader]]` and before the backends, `[ndef]` last (the keys
    /// list it first, in ``sections`` order).
    package static let tapSections: [any ConfigSection.Type] = [VASSection.self, SmartTapSection.self, NDEFSection.self]

    /// `[log]`, `[access]`, `[socket]`, `[events]`, `[session]` and `[[reader]]`.
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
    ]

    /// `[pcsc]` and `[libnfc]`.
    static let backendSettings: [ConfigSetting] = [
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
