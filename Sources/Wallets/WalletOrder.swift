/// Whether the wallet exchanges come before or after SELECT by AID: `[vas] order`, which both
/// wallets follow, Apple VAS and Google Smart Tap (`Config/passtapd.toml`, `[vas]`).
public enum WalletOrder: String, Sendable, Hashable, CaseIterable {
    /// The wallets first (the usual loyalty-then-payment order of a POS).
    case beforeAIDs = "before_aids"
    /// The AID list first, then the wallets.
    case afterAIDs = "after_aids"
}
