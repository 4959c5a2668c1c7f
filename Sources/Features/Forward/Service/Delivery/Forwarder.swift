public import ForwardSettings
public import Foundation
public import Logging
public import PassTapCore
public import PassTapProtocol
public import ServiceLifecycle
import Synchronization

/// Delivers the outbox to every configured sink: one loop per sink, each with its own cursor and
/// backoff, so one sink's outage never holds back another.
///
/// - Each loop takes the next batch (``OutboxStorage/nextBatch(for:kinds:limit:includeMessage:)``,
///   at most the sink's ``ForwardSink/batchLimit``), delivers it, and moves the cursor by the
///   ``DeliveryOutcome``. With nothing pending it waits for a wake-up (``eventsCommitted()``, a
///   reload, `forward.retry` or `forward.drop`); it never polls. A `.retry` waits the
///   ``RetryBackoff`` (or the receiver's `Retry-After`) and tries the same events again, in order;
///   `forward.retry` and `forward.drop` cut that wait short.
/// - A reload (``configurationChanged(from:to:)``) starts a new sink from the next event, makes a
///   changed one again with its cursor kept, and stops a removed one, whose backlog the outbox
///   keeps for `removed_sink_keep_hours`; a timer then drops it and announces `forward.dropped`.
/// - The outbox is opened when the first sink is configured (at start or on a reload); a failure
///   is logged, shown in `forward.status`, and tried again on the next reload.
/// - A sink whose deliveries fail, or every sink while the outbox cannot be opened, is broken:
///   `status.health` and systemd's `STATUS=` name it with its error's class (``healthProblems()``).
/// - `forward.status`, `forward.retry` and `forward.drop` are answered here (``ForwardControl``).
///
/// Sleeps and times go through the injected ``DaemonClock``, and jitter through the injected
/// random source, so tests drive every wait.
public final class Forwarder: Service, ConfigurationObserver, ForwardControl {
    /// How often the backlog gauges are refreshed besides after each batch.
    public static let metricsInterval: Duration = .seconds(5)
    /// How long to wait before trying the outbox again after it failed a timer's query.
    static let outboxRetry: Duration = .seconds(60)

    /// A configured sink and its loop.
    struct Running {
        var configuration: Configuration.ForwardSinkConfiguration
        var sink: any ForwardSink
        var loop: Task<Void, Never>
    }

    struct State {
        var outbox: (any OutboxStorage)?
        /// Why the outbox could not be opened (or set up), until it is.
        var outboxError: String?
        /// Every sink seen since start, configured or not.
        var records: [String: SinkRecord] = [:]
        var running: [String: Running] = [:]
        /// The expiry timer and the metrics refresher, once the outbox is open.
        var timers: [Task<Void, Never>] = []
        /// Events dropped since start, for every reason.
        var dropped = 0
        var stopped = false
    }

    let live: LiveConfiguration
    let openOutbox: @Sendable () async throws(OutboxError) -> any OutboxStorage
    let makeSink: @Sendable (Configuration.ForwardSinkConfiguration) -> any ForwardSink
    let events: EventSink
    /// What every wait sleeps on, and the wall clock of event ages, retry and drop times.
    let clock: DaemonClock
    let random: Mutex<any RandomNumberGenerator & Sendable>
    let metrics: (any ForwardMetricsObserver)?
    let metricsInterval: Duration
    let logger: Logger
    let state = Mutex(State())
    let gate = SerialGate()
    /// Wakes the expiry timer: a sink was removed, or the settings changed.
    let expiryWakeup = Wakeup()
    /// Asks the metrics refresher for a refresh now.
    let refreshWakeup = Wakeup()

    /// A forwarder for the sinks of `live`, not yet running (see ``run()``).
    /// - Parameters:
    ///   - openOutbox: opens the outbox; called when the first sink is configured.
    ///   - makeSink: makes a sink of a configuration (at start, and for a sink a reload adds or changes).
    ///   - events: where `forward.dropped` is published (the event hub's sink).
    ///   - clock: what every wait (backoff, expiry, metrics refresh) sleeps on, and the wall
    ///     clock (event ages, retry and drop times).
    ///   - random: the backoff's jitter.
    ///   - metrics: told of deliveries, retries, dead events, drops and backlogs.
    public init(
        live: LiveConfiguration,
        openOutbox: @escaping @Sendable () async throws(OutboxError) -> any OutboxStorage,
        makeSink: @escaping @Sendable (Configuration.ForwardSinkConfiguration) -> any ForwardSink,
        events: EventSink,
        clock: DaemonClock = .system,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        metrics: (any ForwardMetricsObserver)? = nil,
        metricsInterval: Duration = Forwarder.metricsInterval,
        logger: Logger
    ) {
        self.live = live
        self.openOutbox = openOutbox
        self.makeSink = makeSink
        self.events = events
        self.clock = clock
        self.random = Mutex(random)
        self.metrics = metrics
        self.metricsInterval = metricsInterval
        self.logger = logger
    }

    /// Starts the configured sinks, runs until graceful shutdown, then stops every loop and shuts
    /// every sink down.
    public func run() async throws {
        await gate.run { await self.apply(live.current.forward) }
        try? await gracefulShutdown()
        await gate.run { await self.stop() }
    }

    /// Events were committed to the outbox (the writer's `onCommit`): idle loops look again.
    public func eventsCommitted() {
        for record in state.withLock({ state in state.running.keys.compactMap { state.records[$0] } }) {
            record.work.signal()
        }
    }

    /// Counts `dropped` and publishes it as `forward.dropped` (the outbox writer's drops when full
    /// come here too).
    public func announce(_ dropped: ForwardDropped) {
        state.withLock { $0.dropped += dropped.count }
        metrics?.forwardDropped(reason: dropped.reason, count: dropped.count)
        logger.notice(
            "forwarded events dropped",
            metadata: [
                "forward.reason": "\(dropped.reason.rawValue)", "forward.sink": "\(dropped.sink ?? "-")", "forward.count": "\(dropped.count)",
                "forward.first_id": "\(dropped.firstID)", "forward.last_id": "\(dropped.lastID)",
            ])
        events.publish(.forwardDropped, nil, .forwardDropped(dropped))
    }

    /// Stops every loop and timer, and shuts every sink down.
    func stop() async {
        let timers = state.withLock { state -> [Task<Void, Never>] in
            state.stopped = true
            defer { state.timers = [] }
            return state.timers
        }
        for timer in timers { timer.cancel() }
        await stopSinks(named: nil)
        for timer in timers { await timer.value }
    }

    /// Stops the loops of the sinks named (`nil`: all) and shuts those sinks down. A loop in a
    /// delivery ends when the sink's shutdown ends the delivery.
    func stopSinks(named names: Set<String>?) async {
        let stopping = state.withLock { state -> [Running] in
            let chosen = state.running.keys.filter { names?.contains($0) ?? true }
            return chosen.compactMap { state.running.removeValue(forKey: $0) }
        }
        for running in stopping { running.loop.cancel() }
        await withTaskGroup(of: Void.self) { group in
            for running in stopping { group.addTask { await running.sink.shutdown() } }
        }
        for running in stopping { await running.loop.value }
    }

    /// Sleeps `delay` on the injected clock, or less if `wakeup` is signalled first (or the task
    /// is cancelled).
    func sleep(_ delay: Duration, unlessSignalled wakeup: Wakeup) async {
        await wakeup.wait(upTo: delay, on: clock)
    }
}
