import Foundation
public import Logging
public import PassTapCore
import PCSCBackend
import PassTapServer
import ServiceLifecycle
import UnixSignals

/// The whole daemon: the event hub, the tap coordinator, the PC/SC backend and the socket
/// server, run as one `ServiceGroup` that stops gracefully on SIGTERM or SIGINT.
public struct Daemon: Sendable {
    /// How long a graceful stop may take before the group cancels what is left.
    public static let shutdownBudget: Duration = .seconds(2)

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

    /// Runs until SIGTERM or SIGINT (or a service fails, which is thrown).
    public func run() async throws {
        let hub = EventHub(capacity: configuration.events.buffer)
        let publish: TapCoordinator.Publish = { kind, reader, payload in
            hub.publish(kind, reader: reader, payload: payload)
        }
        let vasReads = VASReadQueue()
        let coordinator = TapCoordinator(configuration: configuration, vasReads: vasReads, logger: logger, publish: publish)
        let backend = PCSCReaderBackend(
            configuration: configuration.pcsc, tapHandler: coordinator, logger: logger, publish: publish)
        let daemon = DaemonInfo.startingNow(version: PassTapVersion.string)
        let server = SocketServer(
            configuration: SocketServerConfiguration(configuration), hub: hub, backend: backend, daemon: daemon,
            vasReads: vasReads, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if configuration.pcsc.enabled {
            services.append(.init(service: PCSCBackendService(backend: backend)))
        } else {
            logger.notice("[pcsc] enabled = false: no readers will be driven")
        }
        services.append(.init(service: server))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Self.shutdownBudget
        logger.info(
            "passtapd starting",
            metadata: ["version": "\(PassTapVersion.string)", "instance": "\(daemon.instance)", "socket": "\(configuration.socket.path)"])
        try await ServiceGroup(configuration: groupConfiguration).run()
        logger.info("passtapd stopped")
    }
}

/// Runs the PC/SC backend's threads for as long as the service group runs.
struct PCSCBackendService: Service {
    let backend: PCSCReaderBackend

    func run() async throws {
        backend.start()
        try? await gracefulShutdown()
        await backend.shutdown()
    }
}
