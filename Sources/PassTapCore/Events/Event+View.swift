extension Event {
    /// This event as subscribers with `view` see it.
    ///
    /// Decrypted passes appear in events only in `read.result`'s `vas.entries` and `smarttap`, and a
    /// tag's records in its `ndef`; in the ``EventView/passesWithheld`` view each entry is
    /// ``VASEntry/withholding(_:)`` `access`, and so are the Smart Tap record
    /// (``SmartTapSessionResult/withholding(_:)``) and the `ndef` record
    /// (``NDEFReadResult/withholding(_:)``: tag type and record count only). Other events are the
    /// same in every view.
    public func viewed(as view: EventView) -> Event {
        guard view == .passesWithheld else { return self }
        return withholdingPasses() ?? self
    }

    /// This event with its VAS entries, Smart Tap record and NDEF record withheld (`access`); `nil`
    /// when it has none, so that every view shows it unchanged.
    func withholdingPasses() -> Event? {
        guard case .readResult(var result) = payload else { return nil }
        let entries = result.session?.vas?.entries ?? []
        guard !entries.isEmpty || result.ndef != nil || result.smartTap != nil else { return nil }
        if !entries.isEmpty { result.session?.vas?.entries = entries.map { $0.withholding(.access) } }
        let smartTap = result.smartTap
        result.session?.smartTap = smartTap?.withholding(.access)
        result.ndef = result.ndef?.withholding(.access)
        var event = self
        event.payload = .readResult(result)
        return event
    }
}
