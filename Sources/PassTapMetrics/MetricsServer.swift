public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
public import PassTapCore
public import Prometheus
public import ServiceLifecycle
import Synchronization

/// The `[metrics] listen` HTTP/1.1 listener: a `Service` that answers `GET /metrics` with the
/// registry in Prometheus' text format, until graceful shutdown.
///
/// Every other path gets 404 and every other method 405; a `Host` header that names neither
/// `localhost`, a loopback address nor the listen address gets 421 (``HostHeaderCheck``). One
/// request per connection: the answer says `Connection: close`. A connection that sends more than
/// ``maximumRequestBytes`` or is still open ``defaultRequestDeadline`` after it opened is closed.
/// At most `maximumConnections` are held at once (`[metrics] max_connections`): one more is closed
/// as soon as it is accepted (``ConnectionCapHandler``). Everything runs on NIO's event loop and
/// nothing there blocks: emitting the registry takes its lock for a copy of the series.
public final class MetricsServer: Service, Sendable {
    /// How many bytes a connection may send: a request head (a scraper's is some 200 bytes).
    public static let maximumRequestBytes = 8192
    /// How long a connection may take to send its request, then to be answered, by default.
    public static let defaultRequestDeadline: TimeAmount = .seconds(10)

    private let address: ListenAddress
    private let registry: PrometheusCollectorRegistry
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let requestDeadline: TimeAmount
    private let maximumConnections: Int
    private let open = OpenConnections()
    private let startup = ListenerStartup()
    private let listener = Mutex<(any Channel)?>(nil)

    /// A listener on `address` for `registry`; nothing happens until ``run()``. A connection is
    /// closed `requestDeadline` after it opened; at most `maximumConnections` are open at once.
    public init(
        address: ListenAddress, registry: PrometheusCollectorRegistry, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, requestDeadline: TimeAmount = defaultRequestDeadline,
        maximumConnections: Int = Configuration.Metrics().maxConnections
    ) {
        self.requestDeadline = requestDeadline
        self.maximumConnections = maximumConnections
        self.address = address
        self.registry = registry
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
    }

    /// How many connections the listener holds now.
    public var openConnections: Int { open.current }

    /// Returns the bound address once the listener accepts connections (the port when 0 was
    /// asked for); throws what made ``run()`` fail before that.
    public func waitUntilListening() async throws -> SocketAddress {
        try await startup.wait()
    }

    /// Binds the listener now (the daemon does, before it reports ready); ``run()`` then serves
    /// on it. Returns the bound address.
    /// - Throws: ``MetricsServerError`` when the address cannot be bound.
    @discardableResult
    public func bind() async throws -> SocketAddress {
        if let bound = listener.withLock({ $0 })?.localAddress { return bound }
        let channel = try await makeListener()
        listener.withLock { $0 = channel }
        guard let bound = channel.localAddress else {
            let failure = MetricsServerError(code: .noLocalAddress, address: address, underlying: ChannelError.unknownLocalAddress)
            try? await channel.close()
            startup.markFailed(failure)
            throw failure
        }
        logger.info("metrics listening", metadata: ["metrics.listen": "\(bound)"])
        startup.markListening(bound)
        return bound
    }

    /// Binds (unless ``bind()`` did), serves until graceful shutdown or cancellation, then closes
    /// the listener.
    /// - Throws: ``MetricsServerError`` when the address cannot be bound.
    public func run() async throws {
        let bound = try await bind()
        try? await gracefulShutdown()
        if let channel = listener.withLock({ $0 }) { try? await channel.close() }
        logger.info("metrics listener closed", metadata: ["metrics.listen": "\(bound)"])
    }

    private func makeListener() async throws -> any Channel {
        let channel: any Channel
        // The listener and its connections share one event loop (scrapes are few and small), so
        // the cap closes a connection over it within the read that accepted it: with connections
        // on other loops the close would wait its turn there, while more are accepted.
        let loop = eventLoopGroup.next()
        do {
            channel = try await ServerBootstrap(group: loop, childGroup: loop)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 32)
                .serverChannelInitializer { [maximumConnections, open] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ConnectionCapHandler(limit: maximumConnections, open: open))
                    }
                }
                .childChannelInitializer { [registry, requestDeadline, hostCheck = HostHeaderCheck(listen: address)] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let operations = channel.pipeline.syncOperations
                        try operations.addHandler(RequestGuardHandler(maximumBytes: Self.maximumRequestBytes, deadline: requestDeadline))
                        try operations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                        try operations.addHandler(MetricsHTTPHandler(registry: registry, hostCheck: hostCheck))
                    }
                }
                .bind(host: address.host, port: address.port).get()
        } catch {
            let failure = MetricsServerError(code: .bindFailed, address: address, underlying: error)
            startup.markFailed(failure)
            throw failure
        }
        return channel
    }
}

/// The metrics listener could not bind its address. Equal by ``code``.
public struct MetricsServerError: Error, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Hashable, Sendable {
        /// Binding the address failed (in use, not allowed, no such address...): see ``underlying``.
        case bindFailed = "bind_failed"
        /// The socket was bound but has no local address to report.
        case noLocalAddress = "no_local_address"
    }

    /// What failed.
    public var code: Code
    /// The `[metrics] listen` address.
    public var address: ListenAddress
    /// What the bind threw.
    public var underlying: any Error

    public var description: String {
        "cannot listen for metrics on \(address) ([metrics] listen): \(underlying)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Lets callers wait until the ``MetricsServer`` listens (or failed to start).
final class ListenerStartup: Sendable {
    private enum State {
        case waiting([CheckedContinuation<SocketAddress, any Error>])
        case settled(Result<SocketAddress, any Error>)
    }

    private let state = Mutex(State.waiting([]))

    func wait() async throws -> SocketAddress {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SocketAddress, any Error>) in
            let outcome: Result<SocketAddress, any Error>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .settled(let outcome): return outcome
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func markListening(_ address: SocketAddress) { settle(.success(address)) }

    func markFailed(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<SocketAddress, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<SocketAddress, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .settled(outcome)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
