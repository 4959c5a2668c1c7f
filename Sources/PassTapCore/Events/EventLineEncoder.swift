/// Turns an event into the line subscribers receive; injected into the ``EventHub``, which calls
/// it once per event and view when the event is published.
///
/// The daemon's is PassTapProtocol's `EventNotificationEncoder` (the one place the wire's JSON
/// settings live). It is called on the publishing thread (a reader's), outside the hub's state
/// lock, so it may take the time encoding takes but must never wait on anything.
public protocol EventLineEncoder: Sendable {
    /// The line of `event`, already in the view it is encoded for (``Event/viewed(as:)``).
    /// Events always encode: an encoder that could fail returns a line that says so.
    func line(for event: Event) -> any EventLine
}
