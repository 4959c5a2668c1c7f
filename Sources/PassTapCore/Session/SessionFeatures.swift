/// What a tap's session takes from the feature slices that run on the card (Apple VAS, Google
/// Smart Tap, NDEF): Core runs their exchanges, but their tables and settings types live in each
/// slice's settings target (docs/architecture.md, "Feature slices"). The daemon hands
/// ``TapCoordinator`` the value the config loader assembles from them.
public struct SessionFeatures: Sendable {
    /// Whether a tap with this configuration answers the `pass.read`s (and `vas.read`s) waiting
    /// on its reader: either wallet is on.
    public var readsPasses: @Sendable (Configuration) -> Bool
    /// The wallet exchanges of a tap with this configuration, VAS asking the merchants in
    /// `requested` (all when `nil`); each `nil` when that wallet is off.
    public var wallets: @Sendable (Configuration, _ requested: Set<String>?) -> (vas: VASPlan?, smartTap: SmartTapPlan?)
    /// Whether a tap with this configuration reads a tag's NDEF message (`[ndef] enabled`).
    public var readsNDEF: @Sendable (Configuration) -> Bool

    /// Features whose parts are the given closures.
    public init(
        readsPasses: @escaping @Sendable (Configuration) -> Bool,
        wallets: @escaping @Sendable (Configuration, _ requested: Set<String>?) -> (vas: VASPlan?, smartTap: SmartTapPlan?),
        readsNDEF: @escaping @Sendable (Configuration) -> Bool
    ) {
        self.readsPasses = readsPasses
        self.wallets = wallets
        self.readsNDEF = readsNDEF
    }
}
