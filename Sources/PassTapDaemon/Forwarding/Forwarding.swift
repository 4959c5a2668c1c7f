import ForwardSettings
import Logging
import PassTapCore
import PassTapForward
import PassTapMetrics
import ServiceLifecycle
import Synchronization

/// The daemon's forwarding parts, wired together: the outbox writer (one of the hub's observers), the
/// forwarder (its sinks' loops, `forward.*`), and the service that closes the outbox last.
///
/// The outbox is opened by the forwarder when the first sink is configured (at start or on a
/// reload) and attached to the writer then; until then the writer keeps nothing.
struct Forwarding {
    /// Records every published event for the outbox (one of `EventHub(observers:)`).
    let writer: OutboxWriter
    /// The sinks' loops, the reload observer and the socket's `ForwardControl`.
    let forwarder: Forwarder
    /// Stops the writer and closes the outbox once everything else has stopped: list it first
    /// among the services (the group stops them in reverse order).
    let closing: OutboxClosing

    init(instance: String, live: LiveConfiguration, events: EventSink, metrics: DaemonMetrics?, logger: Logger) {
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

/// A value set once it exists, read from any thread: for parts that must know each other.
final class LateBound<Value: Sendable>: Sendable {
    private let held = Mutex<Value?>(nil)

    var value: Value? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}
