public import ISO7816

/// What the session engine does on one tap: the SELECT-by-AID order for this reader.
public struct SessionPlan: Sendable, Hashable {
    /// AIDs to SELECT by name, in order; the first that answers `9000` wins.
    public var aids: [AID]

    /// Creates a plan.
    public init(aids: [AID]) {
        self.aids = aids
    }
}
