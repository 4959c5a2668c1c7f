public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
public import PassTapCore
public import ServiceLifecycle
import Synchronization

/// An HTTP/1.1 listener on one TCP address: a `Service` that serves its ``HTTPRoutes`` until
/// graceful shutdown. Both of passtapd's listeners are one: metrics (`[metrics] listen`) and web
/// (`[web] listen`), each with its own routes and ``HTTPListenerLimits``.
///
/// Every connection carries one request and is closed after the answer (`Connection: close`),
/// unless it upgrades to a WebSocket (``WebSocketRoute``). Every request must carry one `Host`
/// header that ``HostHeaderCheck`` accepts (else 400 or 421). At most
/// ``HTTPListenerLimits/maximumConnections`` are held at once: one more is closed as soon as it is
/// accepted (``ConnectionCapHandler``). A connection that sends more than
/// ``HTTPListenerLimits/maximumRequestBytes`` or is still open
/// ``HTTPListenerLimits/requestDeadline`` after it opened is closed (``RequestGuardHandler``).
/// Everything runs on one NIO event loop and nothing there blocks.
public final class HTTPListener: Service, Sendable {
    /// The listener's name and configuration table, in logs and errors (`metrics`, `web`).
    public let name: String
    private let address: ListenAddress
    private let limits: HTTPListenerLimits
    private let routes: HTTPRoutes
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let open = OpenConnections()
    private let startup = ListenerStartup()
    private let listener = Mutex<(any Channel)?>(nil)

    /// A listener named `name` on `address`; nothing happens until ``bind()`` or ``run()``.
    public init(
        name: String, address: ListenAddress, limits: HTTPListenerLimits, routes: HTTPRoutes, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.name = name
        self.address = address
        self.limits = limits
        self.routes = routes
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
    }

    /// How many connections the listener holds now.
    public var openConnections: Int { open.current }

    /// Returns the bound address once the listener accepts connections (the port when 0 was
    /// asked for); throws what made ``bind()`` or ``run()`` fail before that.
    public func waitUntilListening() async throws -> SocketAddress {
        try await startup.wait()
    }

    /// Binds the listener now (the daemon does, before it reports ready); ``run()`` then serves
    /// on it. Returns the bound address.
    /// - Throws: ``HTTPListenerError`` when the address cannot be bound.
    @discardableResult
    public func bind() async throws -> SocketAddress {
        if let bound = listener.withLock({ $0 })?.localAddress { return bound }
        let channel = try await makeListener()
        listener.withLock { $0 = channel }
        guard let bound = channel.localAddress else {
            let failure = HTTPListenerError(code: .noLocalAddress, listener: name, address: address, underlying: ChannelError.unknownLocalAddress)
            try? await channel.close()
            startup.markFailed(failure)
            throw failure
        }
        logger.info("\(name) listening", metadata: ["\(name).listen": "\(bound)"])
        startup.markListening(bound)
        return bound
    }

    /// Binds (unless ``bind()`` did), serves until graceful shutdown or cancellation, then closes
    /// the listener.
    /// - Throws: ``HTTPListenerError`` when the address cannot be bound.
    public func run() async throws {
        let bound = try await bind()
        try? await gracefulShutdown()
        if let channel = listener.withLock({ $0 }) { try? await channel.close() }
        logger.info("\(name) listener closed", metadata: ["\(name).listen": "\(bound)"])
    }

    private func makeListener() async throws -> any Channel {
        // The listener and its connections share one event loop, so the cap closes a connection
        // over it within the read that accepted it: with connections on other loops the close
        // would wait its turn there, while more are accepted.
        let loop = eventLoopGroup.next()
        do {
            return try await ServerBootstrap(group: loop, childGroup: loop)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 32)
                .serverChannelInitializer { [limits, open] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ConnectionCapHandler(limit: limits.maximumConnections, open: open))
                    }
                }
                .childChannelInitializer { [limits, routes, hostCheck = HostHeaderCheck(listen: address)] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.configure(connection: channel, limits: limits, routes: routes, hostCheck: hostCheck)
                    }
                }
                .bind(host: address.host, port: address.port).get()
        } catch {
            let failure = HTTPListenerError(code: .bindFailed, listener: name, address: address, underlying: error)
            startup.markFailed(failure)
            throw failure
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
