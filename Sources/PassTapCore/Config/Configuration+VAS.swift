public import VAS
public import Wallets

extension Configuration {
    /// `[vas] order`: whether the Apple VAS exchange comes before or after SELECT by AID.
    public enum VASOrder: String, Sendable, Hashable, CaseIterable {
        /// VAS first (the usual loyalty-then-payment order of a POS).
        case beforeAIDs = "before_aids"
        /// The AID list first, then VAS.
        case afterAIDs = "after_aids"
    }

    /// `[vas]`: Apple VAS (Wallet loyalty passes) on every tap.
    public struct VAS: Sendable, Hashable {
        /// `enabled`: whether sessions run VAS at all.
        public var enabled: Bool = false
        /// `mode`: what the terminal asks for in `9F26`.
        public var mode: PassMode = .vasOrPayment
        /// `stop_on_first_pass`: after a pass is read, skip SELECT by AID (only with `before_aids`).
        public var stopOnFirstPass: Bool = false
        /// `freshness_s`: the largest gap between a pass timestamp and the host clock; 0 turns it off.
        public var freshnessSeconds: Int = 60
        /// `publish_stale`: publish a stale pass's payload (status stays `stale`).
        public var publishStale: Bool = false
        /// `order`: VAS before or after the AID list.
        public var order: VASOrder = .beforeAIDs
        /// `[[vas.merchants]]`, in request order.
        public var merchants: [VASMerchant] = []

        /// The defaults of the shipped config (VAS off).
        public init() {}

        /// The merchants' pass type ids, in request order.
        public var passTypeIDs: [String] { merchants.map(\.passTypeIdentifier.value) }
    }

    /// One `[[vas.merchants]]` entry: the pass asked for, and the keys that decrypt it.
    ///
    /// Equal when the pass, the request and the keys (by id and file) are; key material never
    /// appears in its description.
    public struct VASMerchant: Sendable, Hashable, CustomStringConvertible {
        /// `pass_type_id`.
        public let passTypeIdentifier: PassTypeIdentifier
        /// The GET VAS DATA request: full VAS with keys, URL-only without.
        public let request: VASMerchantRequest
        /// `keys`: the key files, in configured order.
        public let keyPaths: [String]
        /// Decrypts this merchant's cryptograms; `nil` for a URL-only merchant (no keys).
        public let decryptor: VASDecryptor?

        /// A merchant with loaded keys; `keys` empty means URL-only (then `url` must be set, which
        /// the config loader checks).
        public init(passTypeIdentifier: PassTypeIdentifier, url: String?, filter: [UInt8]?, keys: [MerchantKey], keyPaths: [String]) throws(VASCommandError) {
            self.passTypeIdentifier = passTypeIdentifier
            self.request = try VASMerchantRequest(passTypeIdentifier: keys.isEmpty ? nil : passTypeIdentifier, url: url, filter: filter)
            self.keyPaths = keyPaths
            self.decryptor = keys.isEmpty ? nil : VASDecryptor(passTypeIdentifier: passTypeIdentifier, keys: keys)
        }

        /// The key ids, in configured order.
        public var keyIDs: [VASKeyID] { decryptor?.keys.map(\.keyID) ?? [] }

        public var description: String {
            "\(passTypeIdentifier) (keys \(keyIDs.map(\.hex).joined(separator: ", ")))"
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.passTypeIdentifier == rhs.passTypeIdentifier && lhs.request == rhs.request
                && lhs.keyPaths == rhs.keyPaths && lhs.keyIDs == rhs.keyIDs
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(passTypeIdentifier)
            hasher.combine(keyPaths)
        }
    }
}
