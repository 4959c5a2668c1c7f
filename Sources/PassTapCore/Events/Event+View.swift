extension Event {
    /// This event as subscribers with `view` see it.
    ///
    /// Decrypted passes appear in events only in `read.result`'s `vas.entries`, and a tag's
    /// records in its `ndef`; in the ``EventView/passesWithheld`` view each entry is
    /// ``VASEntry/withholding(_:)`` `access`, and so is the `ndef` record
    /// (``NDEFReadResult/withholding(_:)``: tag type and record count only). Other events are the
    /// same in every view.
    public func viewed(as view: EventView) -> Event {
        guard view == .passesWithheld else { return self }
        return withholdingPasses() ?? self
    }

    /// This event with its VAS entries and NDEF record withheld (`access`); `nil` when it has
    /// neither, so that every view shows it unchanged.
    func withholdingPasses() -> Event? {
        guard case .readResult(var result) = payload else { return nil }
        let entries = result.session?.vas?.entries ?? []
        guard !entries.isEmpty || result.ndef != nil else { return nil }
        if !entries.isEmpty { result.session?.vas?.entries = entries.map { $0.withholding(.access) } }
        result.ndef = result.ndef?.withholding(.access)
        var event = self
        event.payload = .readResult(result)
        return event
    }
}
