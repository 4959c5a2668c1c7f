public import PassTapCore
public import VAS
public import Wallets

extension Configuration {
    /// `[vas]`: Apple VAS (Wallet loyalty passes) on every tap.
    public struct VAS: FeatureSettings {
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
        public var order: WalletOrder = .beforeAIDs
        /// `[[vas.merchants]]`, in request order.
        public var merchants: [VASMerchant] = []

        /// The defaults of the shipped config (VAS off).
        public init() {}

        /// The merchants' pass type ids, in request order.
        public var passTypeIDs: [String] { merchants.map(\.passTypeIdentifier.value) }

        /// `mode` while VAS is on, `nil` while it is off: what the libnfc backend's polling frame
        /// asks for (``PassTapCore/Configuration/LibNFC/pollingFrame(vasMode:)``).
        public var activeMode: PassMode? { enabled ? mode : nil }

        /// A tap's VAS exchange with these settings, asking `requested` of the merchants (all
        /// when `nil`). Whether a tap runs it at all is `enabled`'s.
        public func plan(requested: Set<String>? = nil) -> VASPlan {
            VASPlan(
                mode: mode, merchants: merchants, order: order, stopOnFirstPass: stopOnFirstPass,
                freshnessSeconds: freshnessSeconds, publishStale: publishStale, requested: requested)
        }
    }

    /// `[vas]`, kept in ``PassTapCore/Configuration/features`` (its defaults when the file has no
    /// such table).
    public var vas: VAS {
        get { self[VAS.self] }
        set { self[VAS.self] = newValue }
    }
}

extension Configuration.LibNFC {
    /// The frame every poll cycle sends with `vas` as `[vas]` (``pollingFrame(vasMode:)``).
    public func pollingFrame(vas: Configuration.VAS) -> ECPFrame? {
        pollingFrame(vasMode: vas.activeMode)
    }

    /// Whether a session that failed for RF reasons still ends with S(DESELECT) with `vas` as
    /// `[vas]` (``deselectsAfterRFFailure(vasMode:)``).
    public static func deselectsAfterRFFailure(vas: Configuration.VAS) -> Bool {
        deselectsAfterRFFailure(vasMode: vas.activeMode)
    }
}
