import VAS
/// The Apple VAS part of one tap's plan: the `[vas]` settings and which merchants this tap asks.
public struct VASPlan: Sendable, Hashable {
    /// `[vas]`, with every merchant in configured order.
    public var settings: Configuration.VAS
    /// The pass type ids to ask for; `nil` asks every configured merchant. The others are
    /// reported as `not_requested` (a `vas.read` with a `merchants` subset shapes a tap this way).
    public var requested: Set<String>?

    /// A plan asking `requested` (all when `nil`).
    public init(settings: Configuration.VAS, requested: Set<String>? = nil) {
        self.settings = settings
        self.requested = requested
    }

    /// Whether this tap sends GET VAS DATA for `merchant`.
    public func asks(_ merchant: Configuration.VASMerchant) -> Bool {
        requested?.contains(merchant.passTypeIdentifier.value) ?? true
    }
}
