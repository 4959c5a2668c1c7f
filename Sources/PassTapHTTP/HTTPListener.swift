public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
public import PassTapCore
public import ServiceLifecycle
import Synchronization

/// An HTTP/1.1 listener on one TCP address (and its companion on the other loopback address, or
/// the sockets systemd passed: ``ListenerSockets``): a `Service` that serves its ``HTTPRoutes``
/// until graceful shutdown. It is optional to the daemon: when it cannot listen it stays down,
/// says why (``problem``) and retries, and the readers and the socket go on. Both of passtapd's listeners are one: metrics (`[metrics] listen`) and web
/// (`[web] listen`), each with its own routes and ``HTTPListenerLimits``.
///
/// Every connection carries one request and is closed after the answer (`Connection: close`),
/// unless it upgrades to a WebSocket (``WebSocketRoute``). Every request must carry one `Host`
/// header that ``HostHeaderCheck`` accepts (else 400 or 421). At most
/// ``HTTPListenerLimits/maximumConnections`` are held at once: one more is closed as soon as it is
/// accepted (``ConnectionCapHandler``); the web listener's connections that have not
/// authenticated have their own pool, counted per user (``UnauthenticatedConnections``). A
/// connection that sends more than
/// ``HTTPListenerLimits/maximumRequestBytes`` or is still open
/// ``HTTPListenerLimits/requestDeadline`` after it opened is closed (``RequestGuardHandler``).
/// Everything runs on one NIO event loop and nothing there blocks.
public final class HTTPListener: Service, Sendable {
    /// The longest wait between two attempts to bind an address another process holds.
    public static let longestRetry: Duration = .seconds(5)
    /// The first wait; it doubles up to ``longestRetry``.
    public static let firstRetry: Duration = .milliseconds(250)

    /// The listener's name and configuration table, in logs and errors (`metrics`, `web`).
    public let name: String
    private let address: ListenAddress
    private let sockets: ListenerSockets
    private let limits: HTTPListenerLimits
    /// The web listener's pool of connections that have not authenticated, counted per user.
    private let unauthenticated: UnauthenticatedConnections?
    private let routes: HTTPRoutes
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let open = OpenConnections()
    private let startup = OneShot<SocketAddress, any Error>()
    /// The listening channels, and why the listener is down when it is.
    private let held = Mutex(ListenerState())

    /// A listener named `name` for `address` (its configured `listen`), on `sockets` (by default
    /// `address` alone, bound by the listener); nothing happens until ``bind()`` or ``run()``.
    /// With `unauthenticated`, every accepted connection also passes its
    /// ``UnauthenticatedConnectionGate``.
    public init(
        name: String, address: ListenAddress, sockets: ListenerSockets? = nil, limits: HTTPListenerLimits,
        unauthenticated: UnauthenticatedConnections? = nil, routes: HTTPRoutes, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.name = name
        self.address = address
        self.sockets = sockets ?? .bind(address)
        self.limits = limits
        self.unauthenticated = unauthenticated
        self.routes = routes
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
    }

    /// How many connections the listener holds now.
    public var openConnections: Int { open.current }

    /// Why the listener is not serving now (`nil` while it listens, and before its first try): a
    /// sentence for `status.health.problems`, systemd's `STATUS=` line and the log.
    public var problem: String? { held.withLock { $0.problem } }

    /// Returns the first bound address once the listener accepts connections (the port when 0
    /// was asked for). It waits through failed binds, which are retried; it throws only when the
    /// listener will never listen (systemd passed sockets it refused).
    public func waitUntilListening() async throws -> SocketAddress {
        try await startup.wait()
    }

    /// One attempt to take every socket the listener lacks; returns the first bound address.
    /// ``run()`` calls it until it succeeds.
    /// - Throws: ``HTTPListenerError`` when the configured address (or a passed socket) cannot be
    ///   served; a companion address the system does not have is left out instead.
    @discardableResult
    public func bind() async throws -> SocketAddress {
        if let bound = held.withLock({ $0.channels.first?.localAddress }) { return bound }
        var channels: [any Channel] = []
        do {
            switch sockets {
            case .refused(let reason):
                throw HTTPListenerError(code: .socketRefused, listener: name, address: address, underlying: PassedSocketRefused(reason: reason))
            case .adopt(let descriptors):
                do {
                    for descriptor in descriptors { channels.append(try await makeListener(at: address) { try await $0.withBoundSocket(descriptor).get() }) }
                } catch {
                    // Not retried: a passed socket that cannot be served now will not be later.
                    throw HTTPListenerError(
                        code: .socketRefused, listener: name, address: address,
                        underlying: PassedSocketRefused(reason: "systemd passed a socket named \(name) that passtapd cannot serve: \(error)"))
                }
            case .bind(let primary, let companions):
                channels.append(try await makeListener(at: primary) { try await $0.bind(host: primary.host, port: primary.port).get() })
                for companion in companions {
                    do {
                        channels.append(try await makeListener(at: companion) { try await $0.bind(host: companion.host, port: companion.port).get() })
                    } catch let error as HTTPListenerError where error.isAddressMissing {
                        logger.info("\(name) listener leaves out \(companion): this system has no such address", metadata: ["error": "\(error.underlying)"])
                    }
                }
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        guard let bound = channels.first?.localAddress else {
            for channel in channels { try? await channel.close() }
            throw HTTPListenerError(code: .noLocalAddress, listener: name, address: address, underlying: ChannelError.unknownLocalAddress)
        }
        held.withLock { $0 = ListenerState(channels: channels, problem: nil) }
        let addresses = channels.compactMap(\.localAddress).map { "\($0)" }.joined(separator: ", ")
        logger.notice("\(name) listening", metadata: ["\(name).listen": "\(addresses)"])
        startup.succeed(bound)
        return bound
    }

    /// Serves until graceful shutdown or cancellation, then closes the listener. Until it can bind
    /// (another process holds the port, the address is missing, the unit forbids TCP), it stays
    /// down, reports why (``problem``), and tries again after ``firstRetry``, doubling up to
    /// ``longestRetry``; it never throws, so a listener that cannot listen never stops the
    /// readers or the socket.
    public func run() async throws {
        var wait = Self.firstRetry
        var lastProblem: String?
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await bind()
                break
            } catch let error as HTTPListenerError where error.code == .socketRefused {
                held.withLock { $0.problem = "\(name) listener is down: \(error.underlying)" }
                logger.error("\(name) listener stays down", metadata: ["error": "\(error.underlying)"])
                startup.fail(error)
                try? await gracefulShutdown()
                return
            } catch {
                let problem = "\(name) listener is down: \(error); retrying every \(Self.seconds(Self.longestRetry)) s at most"
                held.withLock { $0.problem = problem }
                if problem != lastProblem {
                    logger.error("\(name) listener is down; the readers and the socket go on, and passtapd retries", metadata: ["error": "\(error)"])
                    lastProblem = problem
                }
                do {
                    let pause = wait
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
                } catch {
                    break
                }
                if Task.isShuttingDownGracefully { break }
                wait = min(wait * 2, Self.longestRetry)
            }
        }
        guard held.withLock({ !$0.channels.isEmpty }) else { return }
        try? await gracefulShutdown()
        let channels = held.withLock { state -> [any Channel] in
            defer { state.channels = [] }
            return state.channels
        }
        for channel in channels { try? await channel.close() }
        logger.info("\(name) listener closed", metadata: ["\(name).listen": "\(address)"])
    }

    private static func seconds(_ duration: Duration) -> Int64 { duration.components.seconds }

    /// One listening channel on `at`, made by `make` from the listener's bootstrap.
    private func makeListener(at: ListenAddress, _ make: (ServerBootstrap) async throws -> any Channel) async throws -> any Channel {
        // The listener and its connections share one event loop, so the cap closes a connection
        // over it within the read that accepted it: with connections on other loops the close
        // would wait its turn there, while more are accepted.
        let loop = eventLoopGroup.next()
        let bootstrap = ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: Int32(limits.acceptBacklog))
            .serverChannelInitializer { [limits, open, unauthenticated] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionCapHandler(limit: limits.maximumConnections, open: open))
                    if let unauthenticated { try channel.pipeline.syncOperations.addHandler(UnauthenticatedConnectionGate(unauthenticated)) }
                }
            }
            .childChannelInitializer { [limits, routes, hostCheck = HostHeaderCheck(listen: address)] channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(connection: channel, limits: limits, routes: routes, hostCheck: hostCheck)
                }
            }
        do {
            return try await make(bootstrap)
        } catch {
            throw HTTPListenerError(code: .bindFailed, listener: name, address: at, underlying: error)
        }
    }

    private static let guardName = "passtap.http.guard"
    private static let requestName = "passtap.http.request"

    /// A connection's pipeline: the request guard, NIO's HTTP/1 codec (with the WebSocket upgrade
    /// when the routes have one), then the request handler.
    private static func configure(connection channel: any Channel, limits: HTTPListenerLimits, routes: HTTPRoutes, hostCheck: HostHeaderCheck) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(
            RequestGuardHandler(maximumBytes: limits.maximumRequestBytes, deadline: limits.requestDeadline), name: guardName)
        var refusal: NIOLoopBoundBox<HTTPResponse?>?
        if let webSocket = routes.webSocket {
            let box = NIOLoopBoundBox.makeEmptyBox(valueType: HTTPResponse.self, eventLoop: channel.eventLoop)
            refusal = box
            try operations.configureHTTPServerPipeline(
                withPipeliningAssistance: false,
                withServerUpgrade: (
                    upgraders: [webSocket.upgrader(hostCheck: hostCheck, refusal: box)],
                    completionHandler: { context in
                        // Upgraded: the WebSocket's handlers take over, with their own limits.
                        let pipeline = context.pipeline.syncOperations
                        pipeline.removeHandler(name: guardName, promise: nil)
                        pipeline.removeHandler(name: requestName, promise: nil)
                    }
                ),
                withErrorHandling: true)
        } else {
            try operations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
        }
        try operations.addHandler(HTTPRequestHandler(respond: routes.respond, hostCheck: hostCheck, refusal: refusal), name: requestName)
    }
}
