public import PassTapCore

/// One setting of `passtapd.toml` as a reload compares it: its config key name, whether only a
/// restart changes it, whether two configurations differ in it, and (for a restart-only setting)
/// how to keep the running value.
///
/// Each table declares its rows once, next to its reader (a feature's in its section,
/// ``ConfigSection/settings``; the core tables' in `ConfigLoader`): the reload's `changed` and
/// `restart_required` lists both come from them (docs/architecture.md, "Feature slices").
public struct ConfigSetting: Sendable {
    /// The config key, as the file and `config.reloaded` name it (`socket.path`, `vas.merchants`).
    public let key: String
    /// Whether only a restart changes the setting: a reload names it when it differs (log and
    /// `config.reloaded`'s `restart_required`) and keeps running with the old value.
    public let requiresRestart: Bool
    /// Whether `old` and `new` differ in this setting.
    public let differs: @Sendable (_ old: Configuration, _ new: Configuration) -> Bool
    /// Copies the setting's value from `old` into `new` (so the running value stays).
    package let keep: @Sendable (_ new: inout Configuration, _ old: Configuration) -> Void

    /// The reloadable setting at `path`.
    package init<Value: Equatable & Sendable>(
        _ key: String, _ path: any WritableKeyPath<Configuration, Value> & Sendable
    ) {
        self.init(key, path, restartOnly: false)
    }

    /// The restart-only setting at `path`: a reload keeps its running value.
    package static func restartOnly<Value: Equatable & Sendable>(
        _ key: String, _ path: any WritableKeyPath<Configuration, Value> & Sendable
    ) -> ConfigSetting {
        ConfigSetting(key, path, restartOnly: true)
    }

    /// The setting at `path`, restart-only or not.
    private init<Value: Equatable & Sendable>(
        _ key: String, _ path: any WritableKeyPath<Configuration, Value> & Sendable, restartOnly: Bool
    ) {
        self.key = key
        requiresRestart = restartOnly
        differs = { old, new in old[keyPath: path] != new[keyPath: path] }
        keep = { new, old in new[keyPath: path] = old[keyPath: path] }
    }

    /// A reloadable setting compared by `differs` (nothing is kept).
    package init(_ key: String, differs: @escaping @Sendable (Configuration, Configuration) -> Bool) {
        self.key = key
        requiresRestart = false
        self.differs = differs
        keep = { _, _ in }
    }
}
