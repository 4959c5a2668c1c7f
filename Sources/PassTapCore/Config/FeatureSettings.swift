/// The settings of one feature's `passtapd.toml` table (`[web]`, `[forward]`, `[metrics]`),
/// kept in ``Configuration`` without Core knowing the type: each feature's settings target
/// declares its type, its section reader and its reload rows (docs/architecture.md, "Feature
/// slices"), and adds a property to `Configuration` that reads ``Configuration/subscript(_:)``.
///
/// `init()` gives the built-in defaults: what a file without the table means.
public protocol FeatureSettings: Sendable, Hashable {
    /// The defaults of the shipped config.
    init()
}

extension FeatureSettings {
    /// Whether this value holds the defaults, so a feature stored with its defaults and one never
    /// stored compare equal.
    fileprivate var isDefault: Bool { self == Self() }

    /// Whether `other` is a value of this type equal to this one.
    fileprivate func isEqual(to other: any FeatureSettings) -> Bool { (other as? Self) == self }
}

/// Every feature's settings in one ``Configuration``, by type: a feature never stored reads as its
/// defaults, so `Configuration()` needs no list of features.
public struct FeatureSettingsStore: Sendable, Hashable {
    private var values: [ObjectIdentifier: any FeatureSettings] = [:]

    /// No feature stored: each reads as its defaults.
    public init() {}

    /// The settings of type `type`, or its defaults.
    public subscript<Settings: FeatureSettings>(_ type: Settings.Type) -> Settings {
        get { values[ObjectIdentifier(type)] as? Settings ?? Settings() }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    /// Equal when every feature holds equal settings, a missing one counting as its defaults.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        for key in Set(lhs.values.keys).union(rhs.values.keys) {
            switch (lhs.values[key], rhs.values[key]) {
            case (let left?, let right?): guard left.isEqual(to: right) else { return false }
            case (let only?, nil), (nil, let only?): guard only.isDefault else { return false }
            case (nil, nil): break
            }
        }
        return true
    }

    /// Hashes the settings that differ from their defaults (so equal stores hash alike), in an
    /// order that does not depend on the dictionary's.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in values where !value.isDefault {
            var one = Hasher()
            one.combine(key)
            one.combine(value)
            combined ^= one.finalize()
        }
        hasher.combine(combined)
    }
}

extension Configuration {
    /// The settings of the feature whose type is `type` (its defaults when the file has none).
    public subscript<Settings: FeatureSettings>(_ type: Settings.Type) -> Settings {
        get { features[type] }
        set { features[type] = newValue }
    }
}
