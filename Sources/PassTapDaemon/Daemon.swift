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
    /// The file SIGHUP reloads; `nil`: no reloading.
    private let configPath: String?
    /// The log level a reload sets; `nil`: the level is left alone.
    private let logLevel: LogLevelSetting?
    private let notifier: SystemdNotifier?

    /// Creates the daemon for a validated configuration.
    public init(configuration: Configuration, logger: Logger) {
        self.init(configuration: configuration, logger: logger, configPath: nil, logLevel: nil, notifier: nil)
    }

    /// Creates the daemon for a validated configuration read from `configPath`, which SIGHUP
    /// reloads (see ``ConfigReloader``); a reload sets `logLevel`, and tells `notifier`.
    package init(configuration: Configuration, logger: Logger, configPath: String?, logLevel: LogLevelSetting?, notifier: SystemdNotifier?) {
        self.configuration = configuration
        self.logger = logger
        self.configPath = configPath
        self.logLevel = logLevel
        self.notifier = notifier
    }

    /// Reads and validates a config file (see ``ConfigLoader``): the one check both
    /// `passtapd --check-config` and a reload (``ConfigReloader``) run, so they always agree.
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
        let live = LiveConfiguration(configuration)
        let coordinator = TapCoordinator(live: live, vasReads: vasReads, logger: logger, events: hub.sink)
        let factory = BackendFactory(tapHandler: coordinator, events: hub.sink, logger: logger)
        if !configuration.section(.pcsc).enabled {
            logger.notice("[pcsc] enabled = false: no PC/SC readers will be driven")
        }
        let readers = ReaderBackends(BackendFactory.names.compactMap { factory.make($0, for: configuration) })
        let daemon = DaemonInfo.startingNow(version: PassTapVersion.string)
        let server = SocketServer(
            configuration: SocketServerConfiguration(configuration), hub: hub, backends: readers, daemon: daemon,
            vasReads: vasReads, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ReaderBackendsService(backends: readers, deadline: Self.backendShutdown)), .init(service: server),
        ]
        if let configPath {
            let reloaded = ReloadTargets(
                logLevel: logLevel, hub: hub, server: server, backends: readers, factory: factory, deadline: Self.backendShutdown)
            services.append(
                .init(
                    service: ConfigReloader(
                        path: configPath, live: live, apply: { await reloaded.apply($0, old: $1) }, events: hub.sink, notifier: notifier,
                        logger: logger)))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
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
