public import PassTapCore
import NDEFSettings
import SmartTapSettings
import VASSettings

extension SessionFeatures {
    /// The session parts of the VAS, Smart Tap and NDEF slices, from their tables (`[vas]`,
    /// `[smarttap]`, `[ndef]`): what the daemon's ``PassTapCore/TapCoordinator`` runs each tap
    /// with (docs/architecture.md, "Feature slices").
    ///
    /// A tap answers waiting pass reads when either wallet is on. Smart Tap takes the wallets'
    /// mode, order and stop from `[vas]`, whether VAS is on or not.
    public static let standard = SessionFeatures(
        readsPasses: { $0.vas.enabled || $0.smartTap.activeCollector != nil },
        wallets: { configuration, requested in
            let vas = configuration.vas
            return (
                vas: vas.enabled ? vas.plan(requested: requested) : nil,
                smartTap: configuration.smartTap.plan(mode: vas.mode, order: vas.order, stopOnFirstPass: vas.stopOnFirstPass)
            )
        },
        readsNDEF: { $0.ndef.enabled })
}
