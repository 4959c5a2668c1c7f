public import MetricsSettings
public import ForwardSettings
public import WebSettings
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
import PassTapHTTP
import Prometheus
import ServiceLifecycle
import UnixSignals
import NIOPosix
import Synchronization
import VASSettings

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
    public func run() async throws {
        let configuration = live.current
        let daemon = DaemonInfo.startingNow(version: PassTapVersion.string)
        // `status`, the metrics and the outbox observe every event the hub publishes.
        let metrics = live.bound.metrics.listen.map { _ in
            DaemonMetrics(registry: PrometheusCollectorRegistry(), merchants: configuration.vas.passTypeIDs, version: PassTapVersion.string)
        }
        // The hub and the forwarding parts know each other: the outbox writer records what the hub
        // publishes, and the forwarder publishes `forward.dropped` through the hub.
        let eventsLink = LateBound<EventSink>()
        let forwarding = Forwarding(
            instance: daemon.instance, live: live, events: EventSink { eventsLink.value?.publish($0, $1, $2) }, metrics: metrics, logger: logger)
        let ledger = HealthLedger(backends: [ReaderID.Backend.pcsc, .nfc].filter { configuration.section($0).enabled }.map(\.rawValue))
        let eventObservers: [(any PublishedEventObserver)?] = [ledger, metrics, forwarding.writer]
        let hub = EventHub(
            lineEncoder: EventNotificationEncoder(), capacity: configuration.events.buffer, maximumBytes: configuration.events.bufferBytes,
            observers: eventObservers.compactMap { $0 })
        let vasReads = PassReadQueue()
        let events = hub.sink
        eventsLink.value = events
        let coordinator = TapCoordinator(live: live, features: .standard, vasReads: vasReads, logger: logger, events: events, observer: metrics?.sessionObserver)
        let factory = BackendFactory(tapHandler: coordinator, events: events, logger: logger)
        if !configuration.section(.pcsc).enabled {
            logger.notice("[pcsc] enabled = false: no PC/SC readers will be driven")
        }
        let readers = ReaderBackends(BackendFactory.names.compactMap { factory.make($0, for: configuration) })
        let watchdog = WatchdogSettings()
        // The health check's pace: half the watchdog's timeout, or 10 s; `status` calls a last
        // healthy check older than three of these stale.
        let checkInterval = watchdog.checkInterval()
        // Reads the budget every round: a reload's budget applies to the next look.
        let supervisor = ReaderSupervisor(backends: readers, live: live, logger: logger)
        let eventLoops = MultiThreadedEventLoopGroup.singleton
        let clientObserver =
            metrics.map { metrics in
                SocketServerObserver(
                    clientsChanged: metrics.clientsChanged(by:), eventsDropped: metrics.eventsDropped(_:),
                    webClientsChanged: metrics.webClientsChanged(by:), authFailed: { metrics.webAuthFailed(reason: $0) })
            } ?? .none
        // `/rpc`'s sessions, with `[web] listen`: served by the socket server's dispatcher.
        let webSessions = live.bound.web.listen.map { _ in WebSessions(live: live, logger: logger, observer: clientObserver) }
        var webClients: (@Sendable () -> Int)?
        if let webSessions { webClients = { webSessions.connectedClients } }
        // The optional listeners: on the sockets systemd passed, or bound here. Either may be down
        // (the port held by another process, a socket unit that does not suit the config); that
        // degrades the daemon and never stops the readers or the socket.
        var passed = passedSockets
        let metricsSockets = live.bound.metrics.listen.map { Self.sockets(for: "metrics", at: $0, passed: &passed) }
        let webSockets = live.bound.web.listen.map { Self.sockets(for: "web", at: $0, passed: &passed) }
        for (name, descriptors) in passed.byName {
            logger.warning(
                "closing sockets systemd passed that no listener serves",
                metadata: ["systemd.fdname": "\(name)", "count": "\(descriptors.count)", "hint": "\(Self.unservedHint(name))"])
            for descriptor in descriptors { close(descriptor) }
        }
        // Each listener's `problem`, set once the listeners exist (below).
        let listeners = LateBound<[@Sendable () -> String?]>()
        let listenerProblems: @Sendable () -> [String] = { (listeners.value ?? []).compactMap { $0() } }
        let server = SocketServer(
            live: live, hub: hub, backends: readers, daemon: daemon,
            vasReads: vasReads, logger: logger, eventLoopGroup: eventLoops,
            health: HealthSources(
                ledger: ledger, lastHealthyCheck: { health.lastHealthy }, staleAfter: checkInterval * 3,
                webClients: webClients, listenerProblems: listenerProblems, forwardingProblems: forwarding.forwarder.healthProblems),
            observer: clientObserver, forward: forwarding.forwarder)
        let readerService = ReaderBackendsService(backends: readers, supervisor: supervisor, deadline: Self.backendShutdown)
        // Everything systemd is told goes through this one notifier.
        let notifier = SystemdNotifier(socket: notifySocket) {
            Self.statusLine(
                readers: readers.readers(), clients: server.connectedClients, webClients: webSessions?.connectedClients,
                lastTap: ledger.lastTaps.map(\.time).max(),
                problems: listenerProblems() + forwarding.forwarder.healthProblems())
        }
        // Without a notify socket (tests, `Daemon(configuration:logger:)`) the checks still run, for `status`.
        let systemd = SystemdService(
            notifier: notifier, watchdog: watchdog,
            health: HealthCheck(eventLoops: eventLoops, supervisor: supervisor), record: health, interval: checkInterval, logger: logger,
            ready: {
                try await server.waitUntilListening()
                await readerService.waitUntilStarted()
            })
        // The group stops services in reverse order: the outbox closes last, after the readers,
        // so every event they publish is kept; the forwarder (appended last) stops first.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: forwarding.closing), .init(service: readerService), .init(service: server), .init(service: systemd),
        ]
        var problems: [@Sendable () -> String?] = []
        if let metrics, let listen = live.bound.metrics.listen, let metricsSockets {
            // Not awaited before the daemon is ready: a port in use leaves only this listener down.
            let metricsServer = MetricsServer(
                address: listen, sockets: metricsSockets, registry: metrics.registry, logger: logger,
                maximumConnections: live.bound.metrics.maxConnections)
            problems.append { metricsServer.problem }
            services.append(.init(service: metricsServer))
        }
        if let webSessions, let listen = live.bound.web.listen, let webSockets {
            let webServer = WebServer(
                address: listen, sockets: webSockets, live: live, server: server, sessions: webSessions, logger: logger, eventLoopGroup: eventLoops)
            problems.append { webServer.problem }
            services.append(.init(service: webServer))
        }
        listeners.value = problems
        // The components that act on a reload, in the order they are told; the rest read `live`
        // at each use (the tap coordinator, the supervisor, the log level). A new listener or
        // forwarder is one more entry here.
        let observers: [(any ConfigurationObserver)?] = [
            hub,
            server,
            webSessions,
            metrics,
            forwarding.forwarder,
            BackendReloader(backends: readers, factory: factory, deadline: Self.backendShutdown),
        ]
        services.append(.init(service: forwarding.forwarder))
        if let configPath {
            services.append(
                .init(
                    service: ConfigReloader(
                        path: configPath, live: live, observers: observers.compactMap { $0 }, events: events, notifier: notifier,
                        logger: logger)))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.gracefulShutdown
        groupConfiguration.maximumCancellationDuration = Self.shutdownBudget - Self.gracefulShutdown
        logger.info(
            "passtapd starting",
            metadata: ["version": "\(PassTapVersion.string)", "instance": "\(daemon.instance)", "socket": "\(live.bound.socket.path)"])
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("passtapd stopped")
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

    /// Where the listener `name` (`web`, `metrics`) on `address` gets its sockets: those systemd
    /// passed under that name, checked against `address`, or else bound here (the web listener
    /// holding both loopback addresses of its port).
    static func sockets(for name: String, at address: ListenAddress, passed: inout PassedSockets) -> ListenerSockets {
        if let descriptors = passed.take(name) {
            return .adopting(descriptors, name: name, address: address, anyLoopbackOfPort: name == "web")
        }
        return name == "web" ? .holdingBothLoopbacks(address) : .bind(address)
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
