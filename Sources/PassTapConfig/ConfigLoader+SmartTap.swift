import ConfigKit
import PassTapCore
import SmartTap
import Wallets
import VAS

extension ConfigLoader {
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
