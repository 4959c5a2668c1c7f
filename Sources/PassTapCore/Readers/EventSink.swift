/// Where a backend, a reader's lifecycle or the tap coordinator publishes events (the event hub,
/// or a test's recorder). Calls are synchronous and safe from any thread.
public struct EventSink: Sendable {
    private let body: @Sendable (EventKind, ReaderID?, EventPayload) -> Void

    /// A sink that hands every event to `publish`.
    public init(_ publish: @escaping @Sendable (EventKind, ReaderID?, EventPayload) -> Void) {
        body = publish
    }

    /// Publishes one event.
    public func publish(_ kind: EventKind, _ reader: ReaderID?, _ payload: EventPayload) {
        body(kind, reader, payload)
    }
}
