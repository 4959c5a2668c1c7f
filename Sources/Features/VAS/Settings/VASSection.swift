package import ConfigKit
public import PassTapCore
import ISO7816
import VAS
package import Wallets

/// `[vas]`: Apple VAS and its `[[vas.merchants]]`, with their key files (docs/vas-keys.md).
package enum VASSection: ConfigSection {
    package static let table = "vas"
    package static let opensFiles = true
    package static let keys = [
        "vas.enabled", "vas.mode", "vas.order", "vas.stop_on_first_pass", "vas.freshness_s",
        "vas.publish_stale",
        "vas.merchants.pass_type_id", "vas.merchants.keys", "vas.merchants.url", "vas.merchants.filter",
    ]
    /// A reload puts each in force at the next tap; the key files are read again on every reload.
    package static let settings: [ConfigSetting] = [
        ConfigSetting("vas.enabled", \.vas.enabled),
        ConfigSetting("vas.mode", \.vas.mode),
        ConfigSetting("vas.order", \.vas.order),
        ConfigSetting("vas.stop_on_first_pass", \.vas.stopOnFirstPass),
        ConfigSetting("vas.freshness_s", \.vas.freshnessSeconds),
        ConfigSetting("vas.publish_stale", \.vas.publishStale),
        ConfigSetting("vas.merchants", \.vas.merchants),
    ]

    /// Reads `[vas]`, loading every merchant's key files with the context's key policy.
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        configuration.vas = try readVAS(&table, keyPolicy: context.keyPolicy)
    }

    /// The most merchants one tap asks for (VTAP and IDTech readers hold 6; the phone answers each
    /// in a few milliseconds, so more only slows every tap).
    static let maximumMerchants = 16
    /// The most keys one merchant may list (rotation needs two or three).
    static let maximumKeysPerMerchant = 8

    /// `[vas]` and its `[[vas.merchants]]`, with every key file loaded and checked with `keyPolicy`.
    static func readVAS(_ table: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.VAS {
        var vas = Configuration.VAS()
        vas.enabled = try table.bool("enabled") ?? vas.enabled
        if let mode = try table.string("mode") {
            guard let parsed = PassMode(rawValue: mode) else {
                throw table.error("mode", "expected one of \(PassMode.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(mode)\"")
            }
            vas.mode = parsed
        }
        if let order = try table.string("order") {
            guard let parsed = WalletOrder(rawValue: order) else {
                let names = WalletOrder.allCases.map(\.rawValue).joined(separator: ", ")
                throw table.error("order", "expected one of \(names), found \"\(order)\"")
            }
            vas.order = parsed
        }
        vas.stopOnFirstPass = try table.bool("stop_on_first_pass") ?? vas.stopOnFirstPass
        if vas.stopOnFirstPass, vas.order != .beforeAIDs {
            throw table.error(
                "stop_on_first_pass",
                "only works with order = \"before_aids\" (the AID session has already run when VAS comes after it); set order = \"before_aids\" or stop_on_first_pass = false")
        }
        vas.freshnessSeconds = try table.integer("freshness_s", in: 0...86_400) ?? vas.freshnessSeconds
        vas.publishStale = try table.bool("publish_stale") ?? vas.publishStale
        // A misspelt key is reported before any key file is opened, so a key-file error cannot hide it.
        table.declare("merchants")
        try table.rejectUnknownKeys()
        vas.merchants = try merchants(of: &table, keyPolicy: keyPolicy)
        if vas.enabled, vas.merchants.isEmpty {
            throw table.error("merchants", "VAS is enabled but no [[vas.merchants]] is configured: add one (pass_type_id and keys) or set enabled = false")
        }
        return vas
    }

    private static func merchants(of table: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> [VASMerchant] {
        var merchants: [VASMerchant] = []
        let entries = try table.arrayOfTables("merchants", maximum: maximumMerchants, what: "merchants (one GET VAS DATA each per tap)")
        for var entry in entries {
            let merchant = try merchant(&entry, keyPolicy: keyPolicy)
            if merchants.contains(where: { $0.passTypeIdentifier == merchant.passTypeIdentifier }) {
                throw entry.error("pass_type_id", "\(merchant.passTypeIdentifier) is configured twice: list each pass once, with all its keys")
            }
            merchants.append(merchant)
        }
        return merchants
    }

    private static func merchant(_ entry: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> VASMerchant {
        let given = try entry.string("pass_type_id")
        // A misspelt key (`pass_type = ...`, `ulr = ...`) is named before anything else is judged.
        entry.declare("url", "filter", "keys")
        try entry.rejectUnknownKeys(context: given.map { "merchant \($0): " } ?? "")
        guard let name = given else {
            throw entry.error("pass_type_id", "every [[vas.merchants]] needs a pass_type_id, as in the pass's pass.json (pass.com.example.loyalty)")
        }
        let pass: PassTypeIdentifier
        do {
            pass = try PassTypeIdentifier(name)
        } catch {
            throw entry.error("pass_type_id", "merchant \"\(name)\": \(error.detail)")
        }
        let url = try entry.string("url")
        var filter: [UInt8]?
        if let hex = try entry.string("filter") {
            guard let bytes = try? [UInt8](hex: hex) else {
                throw entry.error("filter", "merchant \(name): expected 5 bytes in hex such as \"0100000000\", found \"\(hex)\"")
            }
            filter = bytes
        }
        let paths = try entry.strings("keys") ?? []
        guard paths.count <= maximumKeysPerMerchant else {
            throw entry.error("keys", "merchant \(name): expected at most \(maximumKeysPerMerchant) key files, found \(paths.count)")
        }
        guard !paths.isEmpty || url != nil else {
            throw entry.error(
                "keys",
                "merchant \(name) has no keys: list its private key files (keys = [\"/etc/passtap/keys/...pem\"]) for full VAS, or set url for URL-only")
        }
        var keys: [MerchantKey] = []
        var resolved: [String] = []
        for (offset, path) in paths.enumerated() {
            let full = ConfigPaths.resolve(path, relativeTo: entry.file)
            do {
                let key = try MerchantKey(contentsOfFile: full, policy: keyPolicy)
                if keys.contains(where: { $0.keyID == key.keyID }) {
                    throw entry.error("keys", element: offset, "merchant \(name): key file \(full) holds the same key (id \(key.keyID.hex)) as an earlier one")
                }
                keys.append(key)
                resolved.append(full)
            } catch let error as MerchantKeyError {
                throw entry.error("keys", element: offset, "merchant \(name): key file \(error.path): \(error.reason)")
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw entry.error("keys", element: offset, "merchant \(name): key file \(full): \(error)")
            }
        }
        do {
            return try VASMerchant(passTypeIdentifier: pass, url: url, filter: filter, keys: keys, keyPaths: resolved)
        } catch {
            let key = error.code == .invalidFilter ? "filter" : "url"
            throw entry.error(key, "merchant \(name): \(error.detail)")
        }
    }
}
