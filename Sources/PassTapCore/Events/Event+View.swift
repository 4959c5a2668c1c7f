extension Event {
    /// This event as subscribers with `view` see it.
    ///
    /// Decrypted passes appear in events only in `read.result`'s `vas.entries`; in the
    /// ``EventView/passesWithheld`` view each entry is ``VASEntry/withholding(_:)`` `access`.
    /// Other events are the same in every view.
    public func viewed(as view: EventView) -> Event {
        guard view == .passesWithheld else { return self }
        return withholdingPasses() ?? self
    }

    /// This event with its VAS entries withheld (`access`); `nil` when it has no VAS entries, so
    /// that every view shows it unchanged.
    func withholdingPasses() -> Event? {
        guard case .readResult(var result) = payload, var vas = result.session?.vas, !vas.entries.isEmpty else { return nil }
        vas.entries = vas.entries.map { $0.withholding(.access) }
        result.session?.vas = vas
        var event = self
        event.payload = .readResult(result)
        return event
    }
}
