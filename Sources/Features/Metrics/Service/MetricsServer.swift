public import MetricsSettings
public import Logging
public import NIOCore
public import NIOPosix
public import PassTapCore
public import PassTapHTTP
public import Prometheus
public import ServiceLifecycle

/// The `[metrics] listen` HTTP/1.1 listener: a `Service` that answers `GET /metrics` with the
/// registry in Prometheus' text format, until graceful shutdown. An ``HTTPListener`` with
/// ``MetricsRoutes``.
///
/// Every other path gets 404 and every other method 405; a `Host` header that names neither
/// `localhost`, a loopback address nor the listen address gets 421 (``HostHeaderCheck``). One
/// request per connection: the answer says `Connection: close`. A connection that sends more than
/// ``maximumRequestBytes`` or is still open ``defaultRequestDeadline`` after it opened is closed.
/// At most `maximumConnections` are held at once (`[metrics] max_connections`): one more is closed
/// as soon as it is accepted. Everything runs on NIO's event loop and nothing there blocks:
/// emitting the registry takes its lock for a copy of the series.
public final class MetricsServer: Service, Sendable {
    /// How many bytes a connection may send: a request head (a scraper's is some 200 bytes).
    public static let maximumRequestBytes = 8192
    /// How long a connection may take to send its request, then to be answered, by default.
    public static let defaultRequestDeadline: TimeAmount = .seconds(10)

    private let listener: HTTPListener

    /// A listener on `address` for `registry`; nothing happens until ``run()``. A connection is
    /// closed `requestDeadline` after it opened; at most `maximumConnections` are open at once.
    public init(
        address: ListenAddress, sockets: ListenerSockets? = nil, registry: PrometheusCollectorRegistry, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, requestDeadline: TimeAmount = defaultRequestDeadline,
        maximumConnections: Int = Configuration.Metrics().maxConnections
    ) {
        let routes = MetricsRoutes(registry: registry)
        listener = HTTPListener(
            name: "metrics", address: address, sockets: sockets,
            limits: HTTPListenerLimits(
                maximumConnections: maximumConnections, maximumRequestBytes: Self.maximumRequestBytes, requestDeadline: requestDeadline),
            routes: HTTPRoutes(respond: routes.respond(to:)), logger: logger, eventLoopGroup: eventLoopGroup)
    }

    /// How many connections the listener holds now.
    public var openConnections: Int { listener.openConnections }

    /// Why the listener is not serving now (see `HTTPListener.problem`); `nil` while it listens.
    public var problem: String? { listener.problem }

    /// Returns the bound address once the listener accepts connections (the port when 0 was
    /// asked for); it waits through failed binds, which ``run()`` retries.
    public func waitUntilListening() async throws -> SocketAddress {
        try await listener.waitUntilListening()
    }

    /// One attempt to bind the listener now; ``run()`` then serves on it. Returns the bound address.
    /// - Throws: `HTTPListenerError` when the address cannot be bound.
    @discardableResult
    public func bind() async throws -> SocketAddress {
        try await listener.bind()
    }

    /// Binds (unless ``bind()`` did; retrying while it cannot), serves until graceful shutdown or
    /// cancellation, then closes the listener.
    public func run() async throws {
        try await listener.run()
    }
}
