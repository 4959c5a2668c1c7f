/// What the socket's `forward.*` methods ask of the forwarder (PassTapForward's `Forwarder`
/// implements it; the socket server holds it without depending on that target).
public protocol ForwardControl: Sendable {
    /// `forward.status`.
    func status() async -> ForwardStatusResult
    /// `forward.retry`: queue the sink's dead events again.
    func retry(sink: String) async throws(ForwardControlError) -> ForwardRetryResult
    /// `forward.drop`: drop all the sink still has to deliver, announced with `forward.dropped`.
    func drop(sink: String) async throws(ForwardControlError) -> ForwardDropResult
}

/// Why a `forward.*` call could not be done.
public enum ForwardControlError: Error, Sendable, Hashable {
    /// No sink, configured or removed with a kept backlog, has this name (-32021 `unknown_sink`).
    case unknownSink(String)
    /// The outbox could not be read or written; the text says why (-32022 `outbox_unavailable`).
    case outboxUnavailable(String)
}
