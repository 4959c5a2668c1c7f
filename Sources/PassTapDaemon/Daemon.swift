import Foundation
public import Logging
public import PassTapCore
import PassTapProtocol
import PCSCBackend
import NFCBackend
import PassTapServer
import PassTapMetrics
import PassTapForward
import PassTapWeb
import ServiceLifecycle
import UnixSignals
import NIOPosix
import Synchronization
import PassTapVAS
import PassTapFeedback

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole daemon: the event hub, the tap coordinator, the reader backends and the socket
/// server, run as one `ServiceGroup` that stops gracefully on SIGTERM or SIGINT.
public struct Daemon: Sendable {
    /// How long a stop may take in all: the graceful part, then the cancellation of what is left.
    public static let shutdownBudget: Duration = .seconds(2)
    /// The graceful part of ``shutdownBudget``: services end their work (backends release cards,
    /// the server closes its clients).
    public static let gracefulShutdown: Duration = .milliseconds(1500)
    /// How long the backends wait for their threads within the graceful part; a thread stuck in a
    /// transfer to a card that never answers is left behind.
    public static let backendShutdown: Duration = .milliseconds(1000)

    /// The configuration the daemon runs with, handed to every component that reads it.
    private let live: LiveConfiguration
    private let logger: Logger
    /// When the daemon last passed its health check (`status`: `health.last_check_ms`).
    package let health = HealthRecord()
    /// The file SIGHUP reloads; `nil`: no reloading.
    private let configPath: String?
    /// systemd's `$NOTIFY_SOCKET` (none: nothing is sent).
    private let notifySocket: NotifySocket
    /// The listening sockets systemd passed from the socket units (none: the listeners bind).
    private let passedSockets: PassedSockets

    /// Creates the daemon for a validated configuration.
    public init(configuration: Configuration, logger: Logger) {
        self.init(
            live: LiveConfiguration(configuration), logger: logger, configPath: nil, notifySocket: NotifySocket(environment: [:]), passedSockets: .none)
    }

    /// Creates the daemon for `live`, a validated configuration read from `configPath`, which
    /// SIGHUP reloads into `live` (see ``ConfigReloader``); systemd is told through `notifySocket`,
    /// and passed `passedSockets` for the listeners.
    package init(live: LiveConfiguration, logger: Logger, configPath: String?, notifySocket: NotifySocket, passedSockets: PassedSockets) {
        self.live = live
        self.logger = logger
        self.configPath = configPath
        self.notifySocket = notifySocket
        self.passedSockets = passedSockets
    }

    /// Reads and validates a config file (see ``ConfigLoader``): the one check both
    /// `passtapd --check-config` and a reload (``ConfigReloader``) run, so they agree on every
    /// file, with one addition on a reload: `listening`, the `[socket]` the running socket was
    /// bound with (``LiveConfiguration/bound``), which keeps its group and mode until a restart,
    /// so key files must suit its group too.
    public static func loadConfiguration(path: String, listening: Configuration.Socket? = nil) throws(ConfigurationError) -> Configuration {
        try ConfigLoader.load(path: path, listening: listening)
    }

    /// Refuses a configuration whose sinks need an outbox this process's user cannot keep: its
    /// folder missing, not a folder or not writable (``ConfigLoader/checkOutboxFolder(of:file:outbox:allowingMissingStateDirectory:)``).
    /// `passtapd` runs it at start; `--check-config` with `allowingMissingStateDirectory` (the
    /// unit's `StateDirectory=` makes `/var/lib/passtap` at start), whose note it returns; a
    /// reload for the outbox it would open (``ConfigReloader``).
    @discardableResult
    public static func checkOutboxFolder(
        for configuration: Configuration, file: String, outbox: String? = nil, allowingMissingStateDirectory: Bool = false
    ) throws(ConfigurationError) -> String? {
        try ConfigLoader.checkOutboxFolder(
            of: configuration, file: file, outbox: outbox, allowingMissingStateDirectory: allowingMissingStateDirectory)
    }

    /// Judges the directories on the way to `[socket] path` for the user this process runs as,
    /// as the socket server does at start (see `SocketServer.checkDirectories(forSocketAt:)`):
    /// `passtapd --check-config` runs it after ``loadConfiguration(path:)``. A reload does not,
    /// since the socket path is restart-only.
    /// - Throws: the server's `insecure_directory` error, naming the directory and what to do.
    public static func checkSocketDirectories(for configuration: Configuration, file: String) throws(ConfigurationError) {
        do {
            try SocketServer.checkDirectories(forSocketAt: configuration.socket.path)
        } catch {
            throw socketRefusal(error, file: file)
        }
    }

    /// Why ``run()`` stopped, for its one log line: a socket server's refusal as a config refusal
    /// of `file` (``socketRefusal(_:file:)``), any other error as it is.
    public static func stopReason(_ error: any Error, file: String) -> any Error {
        (error as? SocketServerError).map { socketRefusal($0, file: file) } ?? error
    }

    /// A socket server's refusal (its path, its directories, its group) as a config refusal:
    /// `file`, the line of the `[socket]` key it is about, the key and the server's sentence.
    public static func socketRefusal(_ error: SocketServerError, file: String) -> ConfigurationError {
        ConfigLoader.refusal(file: file, table: "socket", key: error.configKey, problem: error.message)
    }

    /// Sets the process umask so that every file the daemon creates, its socket above all, starts
    /// no looser than `[socket] mode` (see `Configuration.Socket.fileCreationMask`); call it
    /// once at start, before ``run()``. Returns the mask it set.
    @discardableResult
    public static func restrictFileCreation(for configuration: Configuration) -> UInt16 {
        let mask = configuration.socket.fileCreationMask
        umask(mode_t(mask))
        return mask
    }

    /// Runs until SIGTERM or SIGINT (or a service fails, which is thrown).
    ///
    /// The daemon is its core (the event hub, the readers and their tap coordinator, the socket
    /// server, systemd's notifier and the reloader) and the feature slices in ``slices(instance:events:)``'s
    /// list: each adds its event observer, reload observer, socket methods, reader hooks, status
    /// part and services (``FeatureSlice``).
    public func run() async throws {
        let configuration = live.current
        let daemon = DaemonInfo.startingNow(version: PassTapVersion.string)
        // Slices publish through the hub (`forward.dropped`), which is made once it knows their observers.
        let eventsLink = LateBound<EventSink>()
        let features = slices(instance: daemon.instance, events: EventSink { eventsLink.value?.publish($0, $1, $2) })
        let slices = features.all
        // `status` and every slice's observer see each event the hub publishes, in this order.
        let ledger = HealthLedger(backends: [ReaderID.Backend.pcsc, .nfc].filter { configuration.section($0).enabled }.map(\.rawValue))
        let hub = EventHub(
            lineEncoder: EventNotificationEncoder(), capacity: configuration.events.buffer, maximumBytes: configuration.events.bufferBytes,
            observers: [ledger] + slices.eventObservers)
        let events = hub.sink
        eventsLink.value = events
        let vasReads = PassReadQueue()
        let hooks = slices.readerHooks
        let coordinator = TapCoordinator(
            live: live, features: .standard, vasReads: vasReads, logger: logger, events: events, observer: features.metrics.recorder?.sessionObserver, hooks: hooks)
        let factory = BackendFactory(tapHandler: coordinator, events: events, logger: logger)
        if !configuration.section(.pcsc).enabled {
            logger.notice("[pcsc] enabled = false: no PC/SC readers will be driven")
        }
        let readers = ReaderBackends(BackendFactory.names.compactMap { factory.make($0, for: configuration) })
        features.feedback.readers.value = readers
        let watchdog = WatchdogSettings()
        // The health check's pace: half the watchdog's timeout, or 10 s; `status` calls a last
        // healthy check older than three of these stale.
        let checkInterval = watchdog.checkInterval()
        // Reads the budget every round: a reload's budget applies to the next look.
        let supervisor = ReaderSupervisor(backends: readers, live: live, logger: logger)
        let eventLoops = MultiThreadedEventLoopGroup.singleton
        // Every slice's problems (a listener down, a sink broken), in list order; the hooks' follow.
        var health = HealthSources(
            ledger: ledger, lastHealthyCheck: { [record = self.health] in record.lastHealthy }, staleAfter: checkInterval * 3,
            featureProblems: { slices.flatMap { $0.problems() } }, readerHooks: hooks)
        for slice in slices { slice.describeStatus(&health) }
        let server = SocketServer(
            live: live, hub: hub, backends: readers, daemon: daemon, vasReads: vasReads, logger: logger, eventLoopGroup: eventLoops,
            health: health, observer: features.metrics.clientObserver, methods: slices.methods)
        let readerService = ReaderBackendsService(backends: readers, supervisor: supervisor, deadline: Self.backendShutdown)
        // Everything systemd is told goes through this one notifier.
        let notifier = SystemdNotifier(socket: notifySocket) { [health] in
            Self.statusLine(
                readers: readers.readers(), clients: server.connectedClients, webClients: health.webClients?(),
                lastTap: ledger.lastTaps.map(\.time).max(), problems: health.problems())
        }
        // Without a notify socket (tests, `Daemon(configuration:logger:)`) the checks still run, for `status`.
        let systemd = SystemdService(
            notifier: notifier, watchdog: watchdog,
            health: HealthCheck(eventLoops: eventLoops, supervisor: supervisor), record: self.health, interval: checkInterval, logger: logger,
            ready: {
                try await server.waitUntilListening()
                await readerService.waitUntilStarted()
            })
        // The slices' services, on the sockets systemd passed (each listener takes its name's);
        // those no slice took are closed.
        var host = SliceHost(server: server, eventLoops: eventLoops, passedSockets: passedSockets.byName)
        let sliceServices = slices.map { $0.services(&host) }
        for (name, descriptors) in host.passedSockets {
            logger.warning(
                "closing sockets systemd passed that no listener serves",
                metadata: ["systemd.fdname": "\(name)", "count": "\(descriptors.count)", "hint": "\(Self.unservedHint(name))"])
            for descriptor in descriptors { close(descriptor) }
        }
        // The group starts services in order and stops them in reverse: the slices' outer ones
        // (the outbox) stop last, after the readers, so every event they publish is kept; their
        // inner ones (listeners, the forwarder) stop first.
        var services: [any Service] = sliceServices.flatMap(\.outer) + [readerService, server, systemd] + sliceServices.flatMap(\.inner)
        if let configPath {
            // The components that act on a reload, in the order they are told; the rest read
            // `live` at each use (the tap coordinator, the supervisor, the log level).
            let observers: [any ConfigurationObserver] =
                [hub, server] + slices.configurationObservers
                + [BackendReloader(backends: readers, factory: factory, deadline: Self.backendShutdown)]
            services.append(
                ConfigReloader(path: configPath, live: live, observers: observers, events: events, notifier: notifier, logger: logger))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.gracefulShutdown
        groupConfiguration.maximumCancellationDuration = Self.shutdownBudget - Self.gracefulShutdown
        logger.info(
            "passtapd starting",
            metadata: ["version": "\(PassTapVersion.string)", "instance": "\(daemon.instance)", "socket": "\(live.bound.socket.path)"])
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("passtapd stopped")
    }

    /// The daemon's feature slices, in the one order every part follows (event observers, reload
    /// observers, socket methods, hooks, problems, services): metrics first, as the others report
    /// to it; feedback last, so its pattern follows every other slice's work on the tap.
    func slices(instance: String, events: EventSink) -> Slices {
        let metrics = MetricsSlice(live: live, histogramBuckets: ForwardSlice.histogramBuckets, logger: logger)
        let vas = VASSlice(live: live, metrics: metrics.factory)
        let web = WebSlice(live: live, metrics: metrics.factory, logger: logger)
        let forward = ForwardSlice(instance: instance, live: live, events: events, metrics: metrics.factory, logger: logger)
        // systemd's StateDirectory= (/var/lib/passtap): where feedback keeps the readers it silenced.
        let feedback = FeedbackSlice(live: live, logger: logger, stateDirectory: ProcessInfo.processInfo.environment["STATE_DIRECTORY"])
        return Slices(metrics: metrics, feedback: feedback, all: [metrics, vas, web, forward, feedback])
    }

    /// The registered slices, and the metrics slice the core reports to (sessions, clients).
    struct Slices {
        let metrics: MetricsSlice
        /// Feedback, whose `feedback.signal` is given the readers once they exist.
        let feedback: FeedbackSlice
        let all: [any FeatureSlice]
    }

    /// systemd's `STATUS=` line: readers, clients (and web clients with `[web] listen`), the
    /// time of the last tap, and each of `status.health`'s problems beyond the readers (a
    /// listener down, a forwarding sink broken) as `; DEGRADED: …`. World-readable
    /// (`systemctl status`), so it names no card, reader, token, host or server text.
    static func statusLine(readers: [ReaderInfo], clients: Int, webClients: Int? = nil, lastTap: Date?, problems: [String] = []) -> String {
        let usable = readers.filter { $0.state != .unavailable }.count
        let tap = lastTap.map { "last tap \(RFC3339.string(from: $0))" } ?? "no tap yet"
        let web = webClients.map { ", \($0) web client\($0 == 1 ? "" : "s")" } ?? ""
        let down = problems.map { "; DEGRADED: \($0)" }.joined()
        return "\(readers.count) reader\(readers.count == 1 ? "" : "s") (\(usable) usable), \(clients) client\(clients == 1 ? "" : "s")\(web), \(tap)\(down)"
    }

    /// What to do about passed sockets named `name` that no listener serves.
    static func unservedHint(_ name: String) -> String {
        PassedSockets.names.contains(name)
            ? "[\(name)] listen is not set in passtapd.toml: set it and restart passtapd (a reload keeps it off), or disable passtapd-\(name).socket"
            : "passtapd serves only sockets named web and metrics (FileDescriptorName=)"
    }
}

/// Runs every reader backend, and the supervisor of their readers' threads, for as long as the
/// service group runs: starts them, and on graceful shutdown stops them within `deadline`.
public struct ReaderBackendsService: Service {
    let backends: ReaderBackends
    let supervisor: ReaderSupervisor?
    let deadline: Duration
    private let started = OneShot<Void, Never>()

    /// A service for `backends` (and `supervisor`, if any), stopping each within `deadline`.
    public init(backends: ReaderBackends, supervisor: ReaderSupervisor? = nil, deadline: Duration) {
        self.backends = backends
        self.supervisor = supervisor
        self.deadline = deadline
    }

    /// Returns once the backends have started.
    public func waitUntilStarted() async {
        await started.wait()
    }

    public func run() async throws {
        backends.start()
        supervisor?.start()
        started.succeed()
        try? await gracefulShutdown()
        await supervisor?.stop()
        await backends.shutdown(deadline: deadline)
    }
}
