public import PassTapCore
public import SmartTap
public import Wallets

extension Configuration {
    /// `[smarttap]`: Google Wallet Smart Tap on every tap, for one collector (docs/smarttap.md).
    ///
    /// The collector's key is loaded and checked like a VAS merchant key; a reload reads it again,
    /// so a new `key_version` and `key` rotate it. Equal when the switch, the collector id, the
    /// key version, the key file and the key (by its public half) are; the key never appears in
    /// its description.
    public struct SmartTap: FeatureSettings, CustomStringConvertible {
        /// `enabled`: whether sessions run Smart Tap for Android phones.
        public var enabled: Bool = false
        /// `collector_id`, `key_version` and the loaded `key`; `nil` when `[smarttap]` names none
        /// (then `enabled` is false: the loader refuses Smart Tap without a collector).
        public var collector: SmartTapCollector?
        /// `key`: the collector's private key file, resolved against the config file's folder.
        public var keyPath: String?

        /// Smart Tap off, no collector.
        public init() {}

        /// Smart Tap for `collector`, whose key was read from `keyPath`.
        public init(enabled: Bool, collector: SmartTapCollector?, keyPath: String?) {
            self.enabled = enabled
            self.collector = collector
            self.keyPath = keyPath
        }

        /// `collector_id`; `nil` without a collector.
        public var collectorID: UInt32? { collector?.collectorID }
        /// `key_version`; `nil` without a collector.
        public var keyVersion: UInt32? { collector?.keyVersion }
        /// The public half of `key`, as PEM; `nil` without a collector.
        public var publicKeyPEM: String? { collector?.publicKeyPEM }
        /// The key file and the key read from it (by its public half): a reload that reads a new
        /// key from the same file changes it.
        public var keyIdentity: [String?] { [keyPath, publicKeyPEM] }

        /// The collector when Smart Tap is on; `nil` when it is off.
        public var activeCollector: SmartTapCollector? { enabled ? collector : nil }

        /// A tap's Smart Tap exchange with the wallets' `mode`, `order` and `stopOnFirstPass`
        /// (`[vas]`, whether VAS is on or not); `nil` while Smart Tap is off.
        public func plan(mode: PassMode, order: WalletOrder, stopOnFirstPass: Bool) -> SmartTapPlan? {
            activeCollector.map { SmartTapPlan(collector: $0, mode: mode, order: order, stopOnFirstPass: stopOnFirstPass) }
        }

        public var description: String {
            guard let collector else { return "Smart Tap off" }
            return "Smart Tap \(enabled ? "on" : "off"): collector \(collector.collectorID), key version \(collector.keyVersion)"
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.enabled == rhs.enabled && lhs.keyPath == rhs.keyPath && lhs.collectorID == rhs.collectorID
                && lhs.keyVersion == rhs.keyVersion && lhs.publicKeyPEM == rhs.publicKeyPEM
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(enabled)
            hasher.combine(keyPath)
            hasher.combine(collectorID)
            hasher.combine(keyVersion)
        }
    }

    /// `[smarttap]`, kept in ``PassTapCore/Configuration/features`` (its defaults when the file
    /// has no such table).
    public var smartTap: SmartTap {
        get { self[SmartTap.self] }
        set { self[SmartTap.self] = newValue }
    }
}
