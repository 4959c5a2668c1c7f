/// The kind of an event published to socket subscribers, by its fixed wire name.
public enum EventKind: String, Sendable, Codable, CaseIterable, Hashable {
    /// A backend's reader stack went away; readers are unavailable until `backend.up`.
    case backendDown = "backend.down"
    /// The reader stack is reachable (again).
    case backendUp = "backend.up"
    /// A reader appeared.
    case readerAdded = "reader.added"
    /// A reader became unavailable (with a `reason`) or usable again.
    case readerChanged = "reader.changed"
    /// A reader went away.
    case readerRemoved = "reader.removed"
    /// A card (or phone) entered a reader's field.
    case cardInserted = "card.inserted"
    /// The card left the field.
    case cardRemoved = "card.removed"
    /// The outcome of the session run on one tap.
    case readResult = "read.result"
    /// A reload (SIGHUP) put a new config file in force.
    case configReloaded = "config.reloaded"
    /// A reload (SIGHUP) refused a config file; the last good one keeps running.
    case configRejected = "config.rejected"
    /// The forwarding outbox dropped events that were still pending: it was full (the oldest
    /// went), a removed sink's backlog expired, or `forward.drop` asked.
    case forwardDropped = "forward.dropped"
}
