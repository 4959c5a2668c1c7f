extension Event {
    /// This event as subscribers with `view` see it.
    ///
    /// Decrypted passes appear in events only in `read.result`'s `vas.entries` and `smarttap`; in
    /// the ``EventView/passesWithheld`` view each entry is ``VASEntry/withholding(_:)`` `access`,
    /// and so is the Smart Tap record (``SmartTapSessionResult/withholding(_:)``).
    /// Other events are the same in every view.
    public func viewed(as view: EventView) -> Event {
        guard view == .passesWithheld else { return self }
        return withholdingPasses() ?? self
    }

    /// This event with its VAS entries and its Smart Tap record withheld (`access`); `nil` when it
    /// has neither, so that every view shows it unchanged.
    func withholdingPasses() -> Event? {
        guard case .readResult(var result) = payload, var session = result.session else { return nil }
        let vasEntries = session.vas?.entries ?? []
        guard !vasEntries.isEmpty || session.smartTap != nil else { return nil }
        if !vasEntries.isEmpty { session.vas?.entries = vasEntries.map { $0.withholding(.access) } }
        session.smartTap = session.smartTap?.withholding(.access)
        result.session = session
        var event = self
        event.payload = .readResult(result)
        return event
    }
}
