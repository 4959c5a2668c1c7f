extension Event {
    /// This event as subscribers with `view` see it.
    ///
    /// Decrypted passes appear in events only in `read.result`'s `vas.entries`; in the
    /// ``EventView/passesWithheld`` view each entry is ``VASEntry/withholding(_:)`` `access`.
    /// Other events are the same in every view.
    public func viewed(as view: EventView) -> Event {
        guard view == .passesWithheld, case .readResult(var result) = payload, var vas = result.session?.vas else { return self }
        vas.entries = vas.entries.map { $0.withholding(.access) }
        result.session?.vas = vas
        var event = self
        event.payload = .readResult(result)
        return event
    }
}
