public import VAS
public import Wallets

/// The Apple VAS part of one tap's plan: the `[vas]` settings the session uses and which
/// merchants this tap asks. The VAS slice's settings make it (docs/architecture.md, "Feature
/// slices").
public struct VASPlan: Sendable, Hashable {
    /// `[vas] mode`: what the terminal asks for in `9F26`.
    public var mode: PassMode
    /// `[[vas.merchants]]`, every one in configured order.
    public var merchants: [VASMerchant]
    /// `[vas] order`: the wallets before or after the AID list.
    public var order: WalletOrder
    /// `[vas] stop_on_first_pass`: after a pass is read, skip SELECT by AID.
    public var stopOnFirstPass: Bool
    /// `[vas] freshness_s`: the largest gap between a pass timestamp and the host clock; 0 turns
    /// the check off.
    public var freshnessSeconds: Int
    /// `[vas] publish_stale`: publish a stale pass's payload (its status stays `stale`).
    public var publishStale: Bool
    /// The pass type ids to ask for; `nil` asks every configured merchant. The others are
    /// reported as `not_requested` (a `vas.read` with a `merchants` subset shapes a tap this way).
    public var requested: Set<String>?

    /// A plan asking `requested` of `merchants` (all when `nil`).
    public init(
        mode: PassMode, merchants: [VASMerchant], order: WalletOrder, stopOnFirstPass: Bool, freshnessSeconds: Int,
        publishStale: Bool, requested: Set<String>? = nil
    ) {
        self.mode = mode
        self.merchants = merchants
        self.order = order
        self.stopOnFirstPass = stopOnFirstPass
        self.freshnessSeconds = freshnessSeconds
        self.publishStale = publishStale
        self.requested = requested
    }

    /// Whether this tap sends GET VAS DATA for `merchant`.
    public func asks(_ merchant: VASMerchant) -> Bool {
        requested?.contains(merchant.passTypeIdentifier.value) ?? true
    }
}
