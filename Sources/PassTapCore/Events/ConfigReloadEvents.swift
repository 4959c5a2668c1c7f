/// What `config.reloaded` says: which file, which settings changed (and are in force now), and
/// which restart-only settings differ (and keep their old values until a restart).
///
/// Only config key names appear here, never values: no key material, no key file contents.
public struct ConfigReloaded: Sendable, Hashable, Codable {
    /// The config file that was read.
    public var file: String
    /// The settings that changed, by config key (`vas.merchants`, `log.level`, `access`...), in
    /// a fixed order; empty when the file's settings were already in force.
    public var changed: [String]
    /// The restart-only settings whose new value differs (`socket.path`...): still running with
    /// the old value.
    public var restartRequired: [String]

    /// Creates the payload.
    public init(file: String, changed: [String], restartRequired: [String]) {
        self.file = file
        self.changed = changed
        self.restartRequired = restartRequired
    }

    private enum CodingKeys: String, CodingKey {
        case file, changed
        case restartRequired = "restart_required"
    }
}

/// What `config.rejected` says: why the file was refused, as `passtapd --check-config` says it
/// (file, line, key, expectation). The configuration in force did not change.
public struct ConfigRejected: Sendable, Hashable, Codable {
    /// The config file that was read.
    public var file: String
    /// The 1-based line of the problem, when it is known.
    @Nullable public var line: Int?
    /// The key path (`vas.merchants[0].keys[1]`); empty for a whole-file problem.
    public var key: String
    /// What was expected and what was found.
    public var problem: String

    /// Creates the payload.
    public init(file: String, line: Int?, key: String, problem: String) {
        self.file = file
        self.line = line
        self.key = key
        self.problem = problem
    }
}
