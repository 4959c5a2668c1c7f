import Synchronization

/// An event as the ``EventHub`` keeps and delivers it: the event, and the lines it has been
/// encoded to, at most one per ``EventView``.
///
/// The hub holds one `PublishedEvent` per event, in its replay ring and in every subscriber queue
/// it reaches, so all subscribers of an event share it. The first one to need the event in its
/// view encodes it (``line(for:encode:)``); every other subscriber of that view, live or
/// replaying, gets the same line. An event is thus encoded once per view in use, not once per
/// subscriber. The lines live as long as the event is buffered or queued somewhere.
///
/// Equal (and hashed) by its event: the lines are a cache.
public final class PublishedEvent: Sendable {
    private struct LineKey: Hashable {
        var view: EventView
        var type: ObjectIdentifier
    }

    /// The event, as published (the ``EventView/full`` view).
    public let event: Event
    /// The lines made so far. Guarded by its own lock, held while a line is being made so that
    /// concurrent subscribers of one view wait for it instead of encoding it again; it is never
    /// taken together with the hub's or a queue's lock.
    private let lines = Mutex<[LineKey: any Sendable]>([:])

    /// Wraps an event the hub has just numbered.
    init(_ event: Event) {
        self.event = event
    }

    /// The event seen in `view` (``Event/viewed(as:)``), encoded by `encode` the first time a
    /// line of type `Line` is asked for in that view, and the same line every later time.
    ///
    /// `encode` runs at most once per view and line type, under this event's lock: it must not
    /// ask this event for a line itself. Every caller asking for one `Line` type must encode the
    /// same way (the server has one encoder), since only the first one's line is kept.
    public func line<Line: Sendable>(for view: EventView, encode: (Event) -> Line) -> Line {
        let key = LineKey(view: view, type: ObjectIdentifier(Line.self))
        return lines.withLock { lines in
            if let line = lines[key] as? Line { return line }
            let line = encode(event.viewed(as: view))
            lines[key] = line
            return line
        }
    }
}

extension PublishedEvent: Hashable {
    public static func == (lhs: PublishedEvent, rhs: PublishedEvent) -> Bool { lhs.event == rhs.event }
    public func hash(into hasher: inout Hasher) { hasher.combine(event) }
}
