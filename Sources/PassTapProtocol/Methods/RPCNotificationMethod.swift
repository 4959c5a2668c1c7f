/// The notifications the server sends to a subscribed client, by wire name.
public enum RPCNotificationMethod: String, Sendable, CaseIterable, Codable {
    /// `event`: params are one ``Event`` (`seq`, `time`, `kind`, `reader`, then the kind's fields).
    case event = "event"
    /// `events.dropped`: params are ``EventsDroppedParams``; events were lost and can be asked for
    /// again with `events.subscribe` `since`.
    case eventsDropped = "events.dropped"
}
