import Foundation
public import Logging
public import PassTapCore
import PCSCBackend
import NFCBackend
import PassTapServer
import ServiceLifecycle
import UnixSignals
import NIOPosix
import Synchronization

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

    private let configuration: Configuration
    private let logger: Logger
    /// When the daemon last passed its health check.
    package let health = HealthRecord()

    /// Creates the daemon for a validated configuration.
    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Reads and validates a config file (see ``ConfigLoader``).
    public static func loadConfiguration(path: String) throws(ConfigurationError) -> Configuration {
        try ConfigLoader.load(path: path)
    }

    /// Sets the process umask so that every file the daemon creates, its socket above all, starts
    /// no looser than `[socket] mode` (see `SocketServerConfiguration.fileCreationMask`); call it
    /// once at start, before ``run()``. Returns the mask it set.
    @discardableResult
    public static func restrictFileCreation(for configuration: Configuration) -> UInt16 {
        let mask = SocketServerConfiguration(configuration).fileCreationMask
        umask(mode_t(mask))
        return mask
    }

    /// Runs until SIGTERM or SIGINT (or a service fails, which is thrown).
    public func run() async throws {
        let hub = EventHub(capacity: configuration.events.buffer, maximumBytes: configuration.events.bufferBytes)
        let vasReads = VASReadQueue()
        let lastTap = LastTap()
        let tapEvents = EventSink { kind, reader, payload in
            if kind == .readResult { lastTap.note() }
            hub.sink.publish(kind, reader, payload)
        }
        let coordinator = TapCoordinator(configuration: configuration, vasReads: vasReads, logger: logger, events: tapEvents)
        var backends: [any ReaderBackend] = []
        if configuration.section(.pcsc).enabled {
            backends.append(
                PCSCReaderBackend(configuration: configuration.section(.pcsc), tapHandler: coordinator, events: hub.sink, logger: logger))
        } else {
            logger.notice("[pcsc] enabled = false: no PC/SC readers will be driven")
        }
        if configuration.section(.nfc).enabled {
            backends.append(NFCReaderBackend(configuration: configuration, tapHandler: coordinator, events: hub.sink, logger: logger))
        }
        let readers = ReaderBackends(backends)
        let budget = Duration.milliseconds(configuration.sessionBudgetMilliseconds)
        let supervisor = ReaderSupervisor(backends: readers, sessionBudget: { budget }, logger: logger)
        let daemon = DaemonInfo.startingNow(version: PassTapVersion.string)
        let eventLoops = MultiThreadedEventLoopGroup.singleton
        let server = SocketServer(
            configuration: SocketServerConfiguration(configuration), hub: hub, backends: readers, daemon: daemon,
            vasReads: vasReads, logger: logger, eventLoopGroup: eventLoops)
        let readerService = ReaderBackendsService(backends: readers, supervisor: supervisor, deadline: Self.backendShutdown)
        let systemd = SystemdService(
            notifier: SystemdNotifier(), watchdog: WatchdogSettings(), health: HealthCheck(eventLoops: eventLoops, supervisor: supervisor),
            record: health, logger: logger,
            ready: {
                try await server.waitUntilListening()
                await readerService.waitUntilStarted()
            },
            status: { Self.statusLine(readers: readers.readers(), clients: server.connectedClients, lastTap: lastTap.date) })
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: readerService), .init(service: server), .init(service: systemd)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.gracefulShutdown
        groupConfiguration.maximumCancellationDuration = Self.shutdownBudget - Self.gracefulShutdown
        logger.info(
            "passtapd starting",
            metadata: ["version": "\(PassTapVersion.string)", "instance": "\(daemon.instance)", "socket": "\(configuration.socket.path)"])
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("passtapd stopped")
    }

    /// systemd's `STATUS=` line: readers, clients and the time of the last tap. World-readable
    /// (`systemctl status`), so it names no card and no reader.
    static func statusLine(readers: [ReaderInfo], clients: Int, lastTap: Date?) -> String {
        let usable = readers.filter { $0.state != .unavailable }.count
        let tap = lastTap.map { "last tap \(RFC3339.string(from: $0))" } ?? "no tap yet"
        return "\(readers.count) reader\(readers.count == 1 ? "" : "s") (\(usable) usable), \(clients) client\(clients == 1 ? "" : "s"), \(tap)"
    }
}

/// When the last tap's `read.result` was published.
private final class LastTap: Sendable {
    private let last = Mutex<Date?>(nil)

    var date: Date? { last.withLock { $0 } }

    func note() {
        last.withLock { $0 = Date() }
    }
}

/// Runs every reader backend, and the supervisor of their readers' threads, for as long as the
/// service group runs: starts them, and on graceful shutdown stops them within `deadline`.
public struct ReaderBackendsService: Service {
    let backends: ReaderBackends
    let supervisor: ReaderSupervisor?
    let deadline: Duration
    private let started = Latch()

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
        started.open()
        try? await gracefulShutdown()
        await supervisor?.stop()
        await backends.shutdown(deadline: deadline)
    }
}
