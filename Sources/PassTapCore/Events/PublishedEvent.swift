/// An event as the ``EventHub`` keeps and delivers it: the event, and its line in each
/// ``EventView``, encoded once when it was published.
///
/// The hub holds one `PublishedEvent` per event, in its replay ring and in every subscriber queue
/// it reaches, so every subscriber of a view, live or replaying, writes the same line: an event is
/// encoded at most once per view, never once per subscriber.
///
/// Equal (and hashed) by its event: the lines follow from it.
public final class PublishedEvent: Sendable {
    /// The event, as published (the ``EventView/full`` view).
    public let event: Event
    /// Its line in the ``EventView/full`` view.
    private let fullLine: any EventLine
    /// Its line in the ``EventView/passesWithheld`` view; `nil` when that view shows the same
    /// event (nothing to withhold), so the full line serves both.
    private let withheldLine: (any EventLine)?

    /// Encodes an event the hub has just numbered, once per view that differs.
    init(_ event: Event, encoder: any EventLineEncoder) {
        self.event = event
        self.fullLine = encoder.line(for: event)
        self.withheldLine = event.withholdingPasses().map { encoder.line(for: $0) }
    }

    /// The line subscribers with `view` write.
    public func line(for view: EventView) -> any EventLine {
        switch view {
        case .full: fullLine
        case .passesWithheld: withheldLine ?? fullLine
        }
    }

    /// The bytes the hub counts for this event against `[events] buffer_bytes`: the length of its
    /// longest line (the withheld one adds `"withheld":"access"` to each VAS entry, so it may be
    /// the longer one when no entry carried a pass).
    var byteCount: Int { max(fullLine.byteCount, withheldLine?.byteCount ?? 0) }
}

extension PublishedEvent: Hashable {
    public static func == (lhs: PublishedEvent, rhs: PublishedEvent) -> Bool { lhs.event == rhs.event }
    public func hash(into hasher: inout Hasher) { hasher.combine(event) }
}
