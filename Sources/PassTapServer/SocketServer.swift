public import Logging
public import NIOCore
public import NIOPosix
public import PassTapCore
public import PassTapProtocol
public import ServiceLifecycle
import Synchronization

/// The Unix-socket JSON-RPC server of `passtapd`: a `Service` that listens until graceful
/// shutdown, then closes its listener and its clients and removes the socket file.
///
/// Each connection is framed into lines of at most ``NDJSON/maximumLineBytes`` by
/// `NDJSONLineDecoder`, served by its own child task, and counted against
/// `max_clients`. See `docs/socket-api.md` for the protocol.
///
/// Its settings come from the daemon's ``LiveConfiguration``: the socket file and `max_clients`
/// from what the listener was bound with (``LiveConfiguration/bound``), the rest from the
/// configuration in force at each use. A reload tells it with ``configurationChanged(from:to:)``.
public final class SocketServer: Service, ConfigurationObserver {
    let live: LiveConfiguration
    /// Whether ``run()`` judges the directories on the socket's path (see `SocketFile`). Always on
    /// in the daemon; a test turns it off to show that the permission step cannot be redirected
    /// even in a directory another user controls.
    private let checksDirectories: Bool
    private let limiter: ConnectionLimiter
    private let clients = Mutex(AdmittedClients())
    /// Answers every request, on the socket and (through ``WebSessions``) on `/rpc`.
    package let dispatcher: MethodDispatcher
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let startup = OneShot<Void, any Error>()
    private let observer: SocketServerObserver

    /// Creates a server; nothing happens until ``run()``.
    /// - Parameters:
    ///   - live: the daemon's configuration: `[socket]`, `[events] client_queue`, `[access]` and
    ///     the `[vas]` merchants `vas.read` may name.
    ///   - hub: the event hub subscribers read from.
    ///   - backends: the readers `status`, `readers.list` and `card.transmit` talk to.
    ///   - daemon: version, instance id and start time, for `status` and `events.subscribe`.
    ///   - vasReads: where `vas.read` waits for taps (the tap coordinator's queue).
    ///   - logger: where connection-level messages go (info and below).
    ///   - eventLoopGroup: NIO's event loops; the shared singleton by default.
    ///   - health: what `status` reports beyond the readers (backends, last taps, health).
    ///   - observer: told of clients and dropped events (the metrics recorder).
    ///   - methods: the feature slices' socket methods (``FeatureSlice/methods``: `forward.*`).
    package convenience init(
        live: LiveConfiguration, hub: EventHub, backends: ReaderBackends, daemon: DaemonInfo, vasReads: PassReadQueue = PassReadQueue(),
        logger: Logger, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, health: HealthSources = HealthSources(),
        observer: SocketServerObserver = .none, methods: [any MethodHandler] = []
    ) {
        self.init(
            live: live, hub: hub, backends: backends, daemon: daemon, vasReads: vasReads, logger: logger, eventLoopGroup: eventLoopGroup,
            health: health, observer: observer, methods: methods, checksDirectories: true)
    }

    /// As the public init; `checksDirectories: false` is for one test only.
    init(
        live: LiveConfiguration, hub: EventHub, backends: ReaderBackends, daemon: DaemonInfo, vasReads: PassReadQueue = PassReadQueue(),
        logger: Logger, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, health: HealthSources = HealthSources(),
        observer: SocketServerObserver = .none, methods: [any MethodHandler] = [], checksDirectories: Bool
    ) {
        self.live = live
        self.checksDirectories = checksDirectories
        self.observer = observer
        self.dispatcher = MethodDispatcher(
            hub: hub, backends: backends, vasReads: vasReads, daemon: daemon, live: live, health: health, observer: observer,
            methods: methods)
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        limiter = ConnectionLimiter(limit: live.bound.socket.maxClients, perUserLimit: live.current.socket.maxClientsPerUID)
    }

    /// How many clients are connected now (refused ones for the moment it takes to refuse them).
    public var connectedClients: Int { limiter.count }

    /// Returns once the socket accepts connections; throws what made ``run()`` fail before that.
    public func waitUntilListening() async throws {
        try await startup.wait()
    }

    /// Prepares the socket file, listens, and serves clients until graceful shutdown or
    /// cancellation; then closes every connection and removes the socket file.
    /// - Throws: ``SocketServerError`` when the socket cannot be set up (another passtapd
    ///   listening, unknown group, a directory on the way another user could change, filesystem
    ///   errors).
    public func run() async throws {
        let socket = live.bound.socket
        let file = SocketFile(path: socket.path, checksDirectories: checksDirectories)
        let server: NIOAsyncChannel<AcceptedClient, Never>
        let inode: ino_t?
        do {
            try file.prepare()
            // Bound and given its group and mode where no other user can reach it, then linked in.
            let staging = try SocketStaging(for: file)
            defer { staging.remove() }
            let listener = try staging.bindListener()
            do {
                server = try await ServerBootstrap(group: eventLoopGroup)
                    // A client's end of input is not the end of the connection: one-shot clients
                    // (`echo ... | socat -`) half-close and still read their answers.
                    .childChannelOption(.allowRemoteHalfClosure, value: true)
                    .bind(listener) { [dispatcher] channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ByteToMessageHandler(NDJSONLineDecoder(), maximumBufferSize: NDJSON.maximumLineBytes))
                            return try AcceptedClient.wrap(channel, dispatcher: dispatcher)
                        }
                    }
            } catch {
                throw SocketServerError.bindFailed(socket.path, error)
            }
            do {
                inode = try staging.publish(mode: socket.mode, group: socket.group)
            } catch {
                try? await server.channel.close()
                throw error
            }
        } catch {
            startup.fail(error)
            throw error
        }
        defer { file.remove(inode: inode) }
        logger.info(
            "listening",
            metadata: [
                "socket.path": "\(socket.path)",
                "socket.mode": "\(String(socket.mode, radix: 8))",
                "socket.max_clients": "\(socket.maxClients)",
            ])
        startup.succeed()
        try await serve(server)
        logger.info("socket closed", metadata: ["socket.path": "\(socket.path)"])
    }

    private func serve(_ server: NIOAsyncChannel<AcceptedClient, Never>) async throws {
        let limiter = self.limiter
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await client in inbound.cancelOnGracefulShutdown() {
                    guard limiter.acquire() else {
                        logger.info("refusing a client over the limit", metadata: ["socket.max_clients": "\(limiter.limit)"])
                        group.addTask { await self.refuse(client.channel, .tooManyClients(limit: limiter.limit)) }
                        continue
                    }
                    group.addTask {
                        defer { limiter.release() }
                        await self.admit(client, limiter: limiter)
                    }
                }
            }
            // The listener is closed: end every client too.
            group.cancelAll()
        }
    }

    /// Learns who the peer is, gives it its roles and serves it, or refuses it: no role at all,
    /// or its user at `max_clients_per_uid`.
    private func admit(_ accepted: AcceptedClient, limiter: ConnectionLimiter) async {
        let client = accepted.channel
        let peer: PeerCredentials
        do {
            peer = try await PeerCredentials.read(from: client.channel)
        } catch {
            // A client that left at once (a probe that connects and closes) is gone before this
            // read: no fault of the daemon's, so not a warning.
            let level: Logger.Level = client.channel.isActive ? .warning : .debug
            logger.log(level: level, "closing a client whose credentials cannot be read", metadata: ["error": "\(error)"])
            // Ended through executeThenClose, as every channel the loop takes is.
            try? await client.executeThenClose { _, _ in }
            return
        }
        var logger = self.logger
        logger[metadataKey: "peer.uid"] = "\(peer.uid)"
        logger[metadataKey: "peer.pid"] = "\(peer.pid)"
        if let problem = peer.groupsProblem {
            // The same race one read later: a client that left between the two reads (seen with
            // the rig's readiness probe) is gone, not a fault, and has nothing left to serve.
            guard client.channel.isActive else {
                logger.debug("closing a client that left before its groups could be read", metadata: ["error": "\(problem)"])
                try? await client.executeThenClose { _, _ in }
                return
            }
            logger.warning("\(problem)")
        }
        // The roles are computed and the client registered in one step under the lock that a
        // reload's scan of the clients holds (``configurationChanged(from:to:)``), and that scan
        // runs after the reload is in force: a reload either finds this client registered (and
        // closes it if its roles change) or is in force before its roles are computed. Never a
        // client with roles a reload took away (docs/socket-api.md, "Access").
        let (settings, roles, id) = clients.withLock { clients in
            let settings = live.current
            let roles = settings.access.roles(uid: peer.uid, groups: peer.allGroups)
            let id = roles.isEmpty ? nil : clients.add(peer: peer, roles: roles, channel: client.channel)
            return (settings, roles, id)
        }
        guard let id else {
            logger.notice("refusing a client that holds no role", metadata: ["peer.gid": "\(peer.gid)"])
            await refuse(client, .noRole(uid: peer.uid))
            return
        }
        defer { clients.withLock { $0.remove(id) } }
        guard limiter.acquire(uid: peer.uid) else {
            logger.info("refusing a client over its user's limit", metadata: ["socket.max_clients_per_uid": "\(limiter.perUserLimit)"])
            await refuse(client, .tooManyClients(uid: peer.uid, limit: limiter.perUserLimit))
            return
        }
        defer { limiter.release(uid: peer.uid) }
        logger.info("client connected", metadata: ["peer.roles": "\(roles.sorted().map(\.rawValue).joined(separator: ","))"])
        observer.clientsChanged(1)
        defer { observer.clientsChanged(-1) }
        await ClientConnection(
            channel: client, writer: accepted.writer, dispatcher: dispatcher, admission: .admitted(.unix(peer), roles),
            idleTimeout: .milliseconds(settings.socket.idleTimeoutMilliseconds), logger: logger
        ).run()
        logger.debug("client disconnected")
    }

    /// A reload is in force (``LiveConfiguration/current`` is `new`): `[access]`,
    /// `allow_transmit`, the VAS merchants, `vas_reads_per_uid`, `client_queue` and
    /// `idle_timeout_ms` hold for what comes next (requests, subscriptions, connections), as they
    /// are read at each use; `max_clients_per_uid` is set here. The socket's path, mode, group and
    /// `max_clients` keep what the listener was bound with (``LiveConfiguration/bound``).
    ///
    /// A connection whose roles differ under the new `[access]` is closed, so that no peer keeps a
    /// role it lost (or misses one it gained); it reconnects with its new roles. Every other
    /// connection, and its subscription, goes on.
    ///
    /// The connections are scanned under the lock that admitting a connection holds while it
    /// computes its roles and registers it, so no connection admitted during a reload escapes
    /// the scan with roles computed under the old `[access]`.
    public func configurationChanged(from old: Configuration, to new: Configuration) {
        let changed = clients.withLock { clients in
            old.access == new.access ? [] : clients.changedRoles(under: new.access)
        }
        limiter.setPerUserLimit(new.socket.maxClientsPerUID)
        for client in changed {
            logger.notice(
                "closing a client whose roles the reload changed; it may reconnect",
                metadata: [
                    "peer.uid": "\(client.peer.uid)", "peer.pid": "\(client.peer.pid)",
                    "peer.roles": "\(client.roles.sorted().map(\.rawValue).joined(separator: ","))",
                    "peer.new_roles": "\(client.newRoles.sorted().map(\.rawValue).joined(separator: ","))",
                ])
            client.channel.close(promise: nil)
        }
    }

    /// Sends `error` (with a null id) and closes.
    private func refuse(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, _ error: JSONRPCError) async {
        try? await client.executeThenClose { _, outbound in
            let answer = JSONRPCResponse<JSONRPCNoResult>(id: .null, error: error)
            try await outbound.write(try NDJSON.encodeLine(answer))
            // Closing discards writes NIO still holds: let the answer reach the socket first.
            try? await client.channel.writeAndFlush(ByteBuffer()).get()
        }
    }
}
