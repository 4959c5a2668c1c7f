public import ISO7816

/// What the session engine does on one tap: the optional Apple VAS exchange, the optional PPSE
/// lookup, and the SELECT-by-AID order for this reader.
public struct SessionPlan: Sendable, Hashable {
    /// AIDs to SELECT by name, in order; the first that answers `9000` wins.
    public var aids: [AID]
    /// SELECT `2PAY.SYS.DDF01` first and try the applications it lists, by priority, before `aids`.
    public var ppse: Bool
    /// The VAS exchange; `nil` when VAS is disabled.
    public var vas: VASPlan?
    /// Read a Type 4 tag's NDEF message after the rest, when nothing else succeeded
    /// (`[ndef] enabled`).
    public var ndef: Bool
    /// The tap's time budget (`[session] budget_ms`): past it the session ends between two
    /// exchanges with `session_timeout`. `nil` for none.
    public var budget: Duration?

    /// Creates a plan.
    public init(aids: [AID], ppse: Bool = false, vas: VASPlan? = nil, ndef: Bool = false, budget: Duration? = nil) {
        self.aids = aids
        self.ppse = ppse
        self.vas = vas
        self.ndef = ndef
        self.budget = budget
    }
}
