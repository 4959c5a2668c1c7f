import Foundation
public import Logging
public import PassTapCore
import PCSCBackend
import NFCBackend
import PassTapServer
import ServiceLifecycle
import UnixSignals

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
        let coordinator = TapCoordinator(configuration: configuration, vasReads: vasReads, logger: logger, events: hub.sink)
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
        let daemon = DaemonInfo.startingNow(version: PassTapVersion.string)
        let server = SocketServer(
            configuration: SocketServerConfiguration(configuration), hub: hub, backends: readers, daemon: daemon,
            vasReads: vasReads, logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [.init(service: ReaderBackendsService(backends: readers, deadline: Self.backendShutdown)), .init(service: server)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.gracefulShutdown
        groupConfiguration.maximumCancellationDuration = Self.shutdownBudget - Self.gracefulShutdown
        logger.info(
            "passtapd starting",
            metadata: ["version": "\(PassTapVersion.string)", "instance": "\(daemon.instance)", "socket": "\(configuration.socket.path)"])
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("passtapd stopped")
    }
}

/// Runs every reader backend for as long as the service group runs: starts them, and on
/// graceful shutdown stops them within `deadline`.
public struct ReaderBackendsService: Service {
    let backends: ReaderBackends
    let deadline: Duration

    /// A service for `backends`, stopping each within `deadline`.
    public init(backends: ReaderBackends, deadline: Duration) {
        self.backends = backends
        self.deadline = deadline
    }

    public func run() async throws {
        backends.start()
        try? await gracefulShutdown()
        await backends.shutdown(deadline: deadline)
    }
}
