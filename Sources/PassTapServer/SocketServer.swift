public import Logging
public import NIOCore
import NIOExtras
public import NIOPosix
public import PassTapCore
import PassTapProtocol
public import ServiceLifecycle

/// The Unix-socket JSON-RPC server of `passtapd`: a `Service` that listens until graceful
/// shutdown, then closes its listener and its clients and removes the socket file.
///
/// Each connection is framed into lines of at most ``NDJSON/maximumLineBytes`` by
/// swift-nio-extras' `LineBasedFrameDecoder`, served by its own child task, and counted against
/// `max_clients`. See `docs/socket-api.md` for the protocol.
public final class SocketServer: Service, Sendable {
    private let configuration: SocketServerConfiguration
    private let dispatcher: MethodDispatcher
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let startup = StartupSignal()

    /// Creates a server; nothing happens until ``run()``.
    /// - Parameters:
    ///   - configuration: socket path, permissions, limits.
    ///   - hub: the event hub subscribers read from.
    ///   - backends: the readers `status`, `readers.list` and `card.transmit` talk to.
    ///   - daemon: version, instance id and start time, for `status` and `events.subscribe`.
    ///   - vasReads: where `vas.read` waits for taps (the tap coordinator's queue).
    ///   - logger: where connection-level messages go (info and below).
    ///   - eventLoopGroup: NIO's event loops; the shared singleton by default.
    public init(
        configuration: SocketServerConfiguration, hub: EventHub, backends: ReaderBackends, daemon: DaemonInfo,
        vasReads: VASReadQueue = VASReadQueue(), logger: Logger, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.dispatcher = MethodDispatcher(
            hub: hub, backends: backends, vasReads: vasReads, daemon: daemon, configuration: configuration)
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
    }

    /// Returns once the socket accepts connections; throws what made ``run()`` fail before that.
    public func waitUntilListening() async throws {
        try await startup.wait()
    }

    /// Prepares the socket file, listens, and serves clients until graceful shutdown or
    /// cancellation; then closes every connection and removes the socket file.
    /// - Throws: ``SocketServerError`` when the socket cannot be set up (another passtapd
    ///   listening, unknown group, filesystem errors).
    public func run() async throws {
        let file = SocketFile(path: configuration.path)
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        let inode: ino_t?
        do {
            try file.prepare()
            do {
                server = try await ServerBootstrap(group: eventLoopGroup)
                    // A client's end of input is not the end of the connection: one-shot clients
                    // (`echo ... | socat -`) half-close and still read their answers.
                    .childChannelOption(.allowRemoteHalfClosure, value: true)
                    .bind(unixDomainSocketPath: configuration.path, cleanupExistingSocketFile: false) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: NDJSON.maximumLineBytes))
                            return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
            } catch {
                throw SocketServerError.bindFailed(configuration.path, error)
            }
            do {
                inode = try file.applyPermissions(mode: configuration.mode, group: configuration.group)
            } catch {
                let bound = file.inode()
                try? await server.channel.close()
                file.remove(inode: bound)
                throw error
            }
        } catch {
            startup.markFailed(error)
            throw error
        }
        defer { file.remove(inode: inode) }
        logger.info(
            "listening",
            metadata: [
                "socket.path": "\(configuration.path)",
                "socket.mode": "\(String(configuration.mode, radix: 8))",
                "socket.max_clients": "\(configuration.maxClients)",
            ])
        startup.markListening()
        try await serve(server)
        logger.info("socket closed", metadata: ["socket.path": "\(configuration.path)"])
    }

    private func serve(_ server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>) async throws {
        let limiter = ConnectionLimiter(limit: configuration.maxClients)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await client in inbound.cancelOnGracefulShutdown() {
                    guard limiter.acquire() else {
                        group.addTask { await self.refuse(client, limit: limiter.limit) }
                        continue
                    }
                    group.addTask {
                        defer { limiter.release() }
                        await ClientConnection(channel: client, dispatcher: self.dispatcher, logger: self.logger).run()
                    }
                }
            }
            // The listener is closed: end every client too.
            group.cancelAll()
        }
    }

    private func refuse(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, limit: Int) async {
        logger.info("refusing a client over the limit", metadata: ["socket.max_clients": "\(limit)"])
        try? await client.executeThenClose { _, outbound in
            let answer = JSONRPCResponse<JSONRPCNoResult>(id: .null, error: .tooManyClients(limit: limit))
            try await outbound.write(try NDJSON.encodeLine(answer))
        }
    }
}
