public import SmartTap
public import Wallets

/// The Google Smart Tap part of one tap's plan: the collector, and the `[vas]` settings that
/// apply to both wallets (mode, order, stop on first pass). The Smart Tap slice's settings make
/// it (docs/architecture.md, "Feature slices").
public struct SmartTapPlan: Sendable, Hashable {
    /// The collector whose passes are asked for, with its key.
    public var collector: SmartTapCollector
    /// `[vas] mode`, as Smart Tap's POS capabilities (``smartTapMode``).
    public var mode: PassMode
    /// `[vas] order`: the wallets before or after the AID list.
    public var order: WalletOrder
    /// `[vas] stop_on_first_pass`: after a pass is read, skip SELECT by AID.
    public var stopOnFirstPass: Bool

    /// A plan for `collector` with the wallets' mode, order and stop (`[vas]`, whether VAS is on
    /// or not).
    public init(collector: SmartTapCollector, mode: PassMode, order: WalletOrder, stopOnFirstPass: Bool) {
        self.collector = collector
        self.mode = mode
        self.order = order
        self.stopOnFirstPass = stopOnFirstPass
    }

    /// The VAS mode as Smart Tap's POS capabilities: `vas_only` asks for a pass only,
    /// `vas_or_payment` for a pass over payment, `vas_and_payment` for a pass and payment.
    public var smartTapMode: SmartTapMode { SmartTapMode(mode) }
}
