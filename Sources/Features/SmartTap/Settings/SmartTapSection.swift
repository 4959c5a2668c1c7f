package import ConfigKit
public import PassTapCore
import SmartTap
package import Wallets

/// `[smarttap]`: Google Wallet Smart Tap's switch and its one collector, with its key file
/// (docs/configuration.md, "[smarttap]").
package enum SmartTapSection: ConfigSection {
    package static let table = "smarttap"
    package static let opensFiles = true
    package static let keys = ["smarttap.enabled", "smarttap.collector_id", "smarttap.key_version", "smarttap.key"]
    /// A reload puts each in force at the next tap.
    package static let settings: [ConfigSetting] = [
        ConfigSetting("smarttap.enabled", \.smartTap.enabled),
        // Through `differs(by:)`: Swift 6.3.1's optimizer crashes on a closure that reads
        // `smartTap` of both configurations inline, in a release build ("Found ownership error").
        ConfigSetting("smarttap.collector_id", differs: differs(by: \.collectorID)),
        ConfigSetting("smarttap.key_version", differs: differs(by: \.keyVersion)),
        // The key file is read again on every reload: a new key in the same file is a change.
        ConfigSetting("smarttap.key", differs: differs(by: \.keyIdentity)),
    ]

    /// Whether two configurations' `[smarttap]` differ in `part`.
    private static func differs<Part: Equatable & Sendable>(
        by part: any KeyPath<Configuration.SmartTap, Part> & Sendable
    ) -> @Sendable (Configuration, Configuration) -> Bool {
        { old, new in
            let before = old.smartTap
            let after = new.smartTap
            return before[keyPath: part] != after[keyPath: part]
        }
    }

    /// Reads `[smarttap]`, loading the collector's key file with the context's key policy.
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        configuration.smartTap = try readSmartTap(&table, keyPolicy: context.keyPolicy)
    }

    /// The collector ids and key versions Smart Tap carries: 4 bytes each on the wire
    /// (docs/smarttap.md, "Configuration"); 0 is no collector.
    static let smartTapNumbers = 1...Int(UInt32.max)

    /// `[smarttap]`: the switch and the one collector, its key file loaded and checked with
    /// `keyPolicy` (the rules of VAS merchant keys).
    ///
    /// `collector_id`, `key_version` and `key` come together: with any of them, all three are
    /// needed and the key is loaded even while `enabled = false`, so `--check-config` judges a
    /// collector before it is switched on.
    static func readSmartTap(_ table: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.SmartTap {
        var smartTap = Configuration.SmartTap()
        smartTap.enabled = try table.bool("enabled") ?? smartTap.enabled
        let collectorID = try table.integer("collector_id", in: smartTapNumbers)
        let keyVersion = try table.integer("key_version", in: smartTapNumbers)
        // A misspelt key is reported before the key file is opened, so a key-file error cannot hide it.
        table.declare("key")
        try table.rejectUnknownKeys()
        let path = try table.string("key")
        guard collectorID != nil || keyVersion != nil || path != nil else {
            if smartTap.enabled {
                throw table.error(
                    "collector_id",
                    "Smart Tap is enabled but no collector is configured: set collector_id, key_version and key (passtap keygen --smarttap writes a key and prints them) or set enabled = false")
            }
            return smartTap
        }
        guard let collectorID else {
            throw table.error("collector_id", "expected the collector id Google's console gave (a number such as 20180608) beside key_version and key")
        }
        guard let keyVersion else {
            throw table.error("key_version", "expected the key version registered with the public key in Google's console (a number such as 1) beside collector_id and key")
        }
        guard let path else {
            throw table.error("key", "expected the path of the collector's P-256 private key file beside collector_id and key_version (passtap keygen --smarttap writes one)")
        }
        let full = ConfigPaths.resolve(path, relativeTo: table.file)
        do {
            smartTap.collector = try SmartTapCollector.load(
                path: full, collectorID: UInt32(collectorID), keyVersion: UInt32(keyVersion), policy: keyPolicy)
        } catch {
            throw table.error("key", "collector \(collectorID): key file \(error.path): \(error.reason)")
        }
        smartTap.keyPath = full
        return smartTap
    }
}
