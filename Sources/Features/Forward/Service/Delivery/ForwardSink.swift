public import ForwardSettings
public import PassTapCore

/// One delivery target (a webhook, a PostgreSQL table). The forwarder gives it batches of pending
/// events in outbox order, one batch at a time, and moves the sink's cursor by what it reports.
///
/// A sink never retries or sleeps itself: it reports, and the forwarder's ``RetryBackoff`` decides
/// when to call again.
public protocol ForwardSink: Sendable {
    /// Its name, type, kinds and message policy, as configured.
    var settings: Configuration.ForwardSinkSettings { get }
    /// The most events one ``deliver(_:)`` takes (a webhook: 1, one event per request).
    var batchLimit: Int { get }
    /// Delivers `batch` (at least one event, oldest first), and says how far it got.
    func deliver(_ batch: [OutboxItem]) async -> DeliveryOutcome
    /// Closes its connections; called once, when the sink is removed or the daemon stops.
    func shutdown() async
}

/// How far one ``ForwardSink/deliver(_:)`` got.
public enum DeliveryOutcome: Sendable, Hashable {
    /// Every event of the batch was delivered.
    case delivered
    /// The first `delivered` events were delivered; the rest must be tried again, not before
    /// `after` when the receiver said so (`Retry-After`), else at the forwarder's backoff.
    /// `error` says what failed, with no secret and no event data in it.
    case retry(delivered: Int, after: Duration?, error: ForwardFailure)
    /// The first `delivered` events were delivered; the next one was refused for good (a webhook
    /// answered a 4xx other than 408 and 429) and goes to the sink's dead list. The rest is
    /// delivered next, without waiting.
    case dead(delivered: Int, error: ForwardFailure)
}
