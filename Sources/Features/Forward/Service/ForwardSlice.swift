public import ForwardSettings
public import Logging
public import PassTapProtocol
public import PassTapCore
public import PassTapServer
public import ServiceLifecycle
public import CoreMetrics

/// Forwarding as the daemon runs it (docs/fleet.md): the outbox writer (one of the hub's
/// observers), the forwarder (its sinks' loops, the `forward.*` methods, its reload observer and
/// its problems in `status`), and the service that closes the outbox last.
///
/// The outbox is opened by the forwarder when the first sink is configured (at start or on a
/// reload) and attached to the writer then; until then the writer keeps nothing.
package struct ForwardSlice: FeatureSlice {
    /// Records every published event for the outbox (one of `EventHub(observers:)`).
    let writer: OutboxWriter
    /// The sinks' loops, the reload observer and the socket's `ForwardControl`.
    let forwarder: Forwarder
    /// Stops the writer and closes the outbox once everything else has stopped: list it first
    /// among the services (the group stops them in reverse order).
    let closing: OutboxClosing
    private let live: LiveConfiguration

    package let name = "forward"

    /// The histogram buckets of forwarding's series, for the metrics slice's factory.
    package static let histogramBuckets = ForwardMetrics.histogramBuckets

    /// Forwarding for the daemon `instance`, reading `[forward]` from `live`; `forward.dropped` goes
    /// out through `events`, and its series (``ForwardMetrics``) are made on `metrics`, the metrics
    /// slice's factory (none without `[metrics] listen`).
    package init(instance: String, live: LiveConfiguration, events: EventSink, metrics: (any MetricsFactory)?, logger: Logger) {
        let metrics = metrics.map(ForwardMetrics.init(factory:))
        self.live = live
        // The writer and the forwarder call each other: each learns of the other once made.
        let forwarderLink = LateBound<Forwarder>()
        let opened = LateBound<Outbox>()
        let writer = OutboxWriter(
            instance: instance, live: live, logger: logger,
            onCommit: { forwarderLink.value?.eventsCommitted() },
            announce: { dropped in forwarderLink.value?.announce(dropped) })
        let forwarder = Forwarder(
            live: live,
            openOutbox: { () async throws(OutboxError) -> any OutboxStorage in
                let forward = live.current.forward
                let outbox = try await Outbox.open(path: forward.outbox, sync: forward.sync, logger: logger)
                opened.value = outbox
                writer.attach(outbox)
                return outbox
            },
            makeSink: { configuration -> any ForwardSink in
                switch configuration {
                case .webhook(let webhook): return WebhookSink(configuration: webhook, logger: logger)
                case .postgres(let postgres): return PostgresSink(configuration: postgres, logger: logger)
                }
            },
            events: events, metrics: metrics, logger: logger)
        forwarderLink.value = forwarder
        self.writer = writer
        self.forwarder = forwarder
        self.closing = OutboxClosing(writer: writer, outbox: { opened.value })
    }

    package var methods: [any MethodHandler] { Self.methods(forward: forwarder, settings: { [live] in live.current.forward }) }

    /// `forward.status`, `forward.retry` and `forward.drop`, answered by `forward`; without one,
    /// `forward.status` says forwarding is off (with `settings`' source and limit) and the others
    /// know no sink.
    package static func methods(
        forward: (any ForwardControl)?, settings: @escaping @Sendable () -> Configuration.Forward
    ) -> [any MethodHandler] {
        [ForwardStatusHandler(forward: forward, settings: settings), ForwardRetryHandler(forward: forward), ForwardDropHandler(forward: forward)]
    }
    package var eventObserver: (any PublishedEventObserver)? { writer }
    package var configurationObserver: (any ConfigurationObserver)? { forwarder }
    package func problems() -> [String] { forwarder.healthProblems() }

    /// The outbox closes last, after the readers, so every event they publish is kept; the
    /// forwarder stops first.
    package func services(_ host: inout SliceHost) -> SliceServices {
        SliceServices(outer: [closing], inner: [forwarder])
    }
}

/// Stops the outbox writer and closes the outbox at graceful shutdown. Listed first among the
/// daemon's services, it stops last: after the readers, so every event they published is kept.
struct OutboxClosing: Service {
    let writer: OutboxWriter
    let outbox: @Sendable () -> Outbox?

    func run() async throws {
        try? await gracefulShutdown()
        await writer.stop()
        await outbox()?.close()
    }
}
