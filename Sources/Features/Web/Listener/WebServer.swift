public import WebSettings
public import Logging
import NIOCore
import NIOHTTP1
public import NIOPosix
import NIOWebSocket
import PassTapDashboard
public import PassTapHTTP
public import PassTapCore
import PassTapProtocol
public import PassTapServer
public import ServiceLifecycle

/// The browser listener of `passtapd` (`[web] listen`, loopback only): the operator dashboard at
/// `GET /` with its assets (``Dashboard``), and `GET /rpc`, which upgrades to a WebSocket carrying
/// the socket's JSON-RPC, one message per text frame, served by ``WebSessions`` with the
/// ``SocketServer``'s dispatcher. See `docs/web.md`.
///
/// At the handshake, before any upgrade: the `Host` must name this listener (the shared
/// `HostHeaderCheck`; else 421), and a present `Origin` must be the listener's own or listed by
/// some token (else 403). A token never travels in the URL: only `auth`, the first message, carries
/// it. No answer carries CORS headers: the page is same-origin, and no other page may read these.
///
/// Connections that have not authenticated (page requests, `/rpc` before its handshake
/// completes) have a pool of their own, `max_clients` places beside the `max_clients`
/// authenticated ones, with at most `max_pending_per_uid` per user (the owner of the peer's
/// socket; `UnauthenticatedConnections`), so a local process that floods the port never takes an
/// authenticated client's place, nor another user's way in. Each has ``requestDeadline`` to send
/// its request, then `auth_timeout_ms` to complete the handshake.
///
/// `listen` and `max_clients` are what the listener was bound with (``LiveConfiguration/bound``);
/// the rest is read from the configuration in force (`max_pending_per_uid` at each connection).
/// A reload is told to the sessions, which are in the daemon's list of configuration observers.
public final class WebServer: Service {
    /// How long a connection has to send its request (a page, or the WebSocket upgrade). A
    /// browser sends it as soon as it connects; 5 s is for a loaded machine, not a slow network.
    static let requestDeadline: TimeAmount = .seconds(5)
    /// The kernel's queue of connections not accepted yet (`HTTPListenerLimits.acceptBacklog`):
    /// deep enough that a flood held to its user's few places cannot fill it with the
    /// connections passtapd closes and it opens again, so others connect without waiting.
    static let acceptBacklog = 512

    private let sessions: WebSessions
    private let dispatcher: MethodDispatcher
    private let listener: HTTPListener
    private let address: ListenAddress
    private let accepted: AsyncStream<(AcceptedClient, String?)>
    private let arrivals: AsyncStream<(AcceptedClient, String?)>.Continuation
    private let logger: Logger

    /// A listener on `address` (`[web] listen`) serving `sessions` with `server`'s dispatcher.
    public init(
        address: ListenAddress, sockets: ListenerSockets? = nil, live: LiveConfiguration, server: SocketServer, sessions: WebSessions, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.sessions = sessions
        self.address = address
        self.logger = logger
        (accepted, arrivals) = AsyncStream.makeStream(of: (AcceptedClient, String?).self)
        let dispatcher = server.dispatcher
        self.dispatcher = dispatcher
        let upgrade = WebSocketRoute(
            path: "/rpc", maximumFrameSize: NDJSON.maximumLineBytes,
            shouldUpgrade: { [sessions] channel, head in
                let origins = head.headers["origin"]
                guard origins.count <= 1, sessions.admitsHandshake(origin: origins.first) else {
                    return channel.eventLoop.makeSucceededFuture(
                        .refuse(.text(.forbidden, "this Origin may not use /rpc: list it in a [[web.tokens]] entry's origins\n")))
                }
                return channel.eventLoop.makeSucceededFuture(.accept(HTTPHeaders()))
            },
            upgraded: { [arrivals] channel, head in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(WebSocketTextCodec())
                    let client = try AcceptedClient.wrap(channel, dispatcher: dispatcher)
                    arrivals.yield((client, head.headers["origin"].first))
                }
            })
        let files = StaticFiles(headers: StaticFiles.pageHeaders(contentSecurityPolicy: Dashboard.contentSecurityPolicy)) { path in
            Dashboard.asset(at: String(path)).map { StaticFiles.File(contentType: $0.contentType, body: ByteBuffer(bytes: $0.body)) }
        }
        // Known now unless the port is 0 (tests), so no connection ever finds them missing.
        if address.port != 0 { sessions.setListenerOrigins(WebSessions.listenerOrigins(of: address, port: address.port)) }
        let maxClients = live.bound.web.maxClients
        let unauthenticated = UnauthenticatedConnections(
            listener: "web", limit: maxClients, perUserLimit: { live.current.web.maxPendingPerUID }, logger: logger)
        sessions.setAuthenticatedObserver { unauthenticated.authenticated($0) }
        listener = HTTPListener(
            name: "web", address: address, sockets: sockets,
            limits: HTTPListenerLimits(
                maximumConnections: 2 * maxClients, maximumRequestBytes: 16 * 1024, requestDeadline: Self.requestDeadline,
                acceptBacklog: Self.acceptBacklog),
            unauthenticated: unauthenticated,
            routes: HTTPRoutes(webSocket: upgrade) { request in
                files.response(to: request) ?? .text(.notFound, "not found: passtapd serves the dashboard at / and the WebSocket at /rpc\n")
            },
            logger: logger, eventLoopGroup: eventLoopGroup)
    }

    /// Why the listener is not serving now (see `HTTPListener.problem`); `nil` while it listens.
    public var problem: String? { listener.problem }

    /// Returns the first bound address once the listener accepts connections, and the sessions
    /// know its origins.
    public func waitUntilListening() async throws -> SocketAddress {
        let bound = try await listener.waitUntilListening()
        sessions.setListenerOrigins(WebSessions.listenerOrigins(of: address, port: bound.port ?? address.port))
        return bound
    }

    /// Serves until graceful shutdown (binding, and retrying while it cannot), then closes the
    /// listener and every connection.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [listener, arrivals] in
                defer { arrivals.finish() }
                try await listener.run()
            }
            // The sessions learn the listener's own origins once it listens (the port, when 0 was
            // asked for); a connection can only come after that.
            group.addTask { [self] in _ = try? await waitUntilListening() }
            for await (client, origin) in accepted {
                group.addTask { [sessions, dispatcher] in await sessions.serve(client, origin: origin, dispatcher: dispatcher) }
            }
            // The listener is closed: end every connection too.
            group.cancelAll()
        }
    }
}
