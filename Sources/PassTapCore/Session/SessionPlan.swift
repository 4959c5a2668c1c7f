public import ISO7816
public import Wallets

/// What the session engine does on one tap: the optional wallet exchanges (Apple VAS, Google
/// Smart Tap), the optional PPSE lookup, and the SELECT-by-AID order for this reader.
public struct SessionPlan: Sendable, Hashable {
    /// AIDs to SELECT by name, in order; the first that answers `9000` wins.
    public var aids: [AID]
    /// SELECT `2PAY.SYS.DDF01` first and try the applications it lists, by priority, before `aids`.
    public var ppse: Bool
    /// The VAS exchange; `nil` when VAS is disabled.
    public var vas: VASPlan?
    /// The Smart Tap exchange for Android phones; `nil` when Smart Tap is disabled.
    public var smartTap: SmartTapPlan?
    /// Read a Type 4 tag's NDEF message after the rest, when nothing else succeeded
    /// (`[ndef] enabled`).
    public var ndef: Bool
    /// The tap's time budget (`[session] budget_ms`): past it the session ends between two
    /// exchanges with `session_timeout`. `nil` for none.
    public var budget: Duration?

    /// Creates a plan.
    public init(aids: [AID], ppse: Bool = false, vas: VASPlan? = nil, smartTap: SmartTapPlan? = nil, ndef: Bool = false, budget: Duration? = nil) {
        self.aids = aids
        self.ppse = ppse
        self.vas = vas
        self.smartTap = smartTap
        self.ndef = ndef
        self.budget = budget
    }

    /// Whether the wallets come before or after the AID list; `nil` when neither wallet is
    /// planned. VAS's settings win when both are (the daemon gives both the same `[vas]` ones).
    public var walletOrder: WalletOrder? { vas?.order ?? smartTap?.order }

    /// Whether a pass read by either wallet ends the session before the AID list.
    public var stopsOnFirstPass: Bool { vas?.stopOnFirstPass ?? smartTap?.stopOnFirstPass ?? false }
}
