import Logging
import NIOCore
import PassTapCore
import PassTapProtocol
import Synchronization

/// An accepted connection: the async channel its requests and answers go through, and the
/// handler in its pipeline that streams its subscription.
package struct AcceptedClient: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let writer: NIOLoopBound<SubscriptionWriter>

    /// Adds the ``SubscriptionWriter`` to `channel`'s pipeline (after the framing handlers that
    /// turn its bytes into one `ByteBuffer` per request, and its answer lines back into bytes)
    /// and wraps it for a ``ClientConnection``. Call it on the channel's event loop.
    ///
    /// The channel is closed when dropped, not a trap: a client accepted as the listener closes
    /// (shutdown right after a connect) never reaches the accept loop, and NIO drops its channel.
    /// `wrappingChannelSynchronously` would trap on that ("Deinited NIOAsyncWriter without calling
    /// finish()"; seen as passtapd's SIGILL at SIGTERM, reproduced by ShutdownRaceTests), so this
    /// uses the (deprecated) deinit-based teardown. Every channel that does reach the loop still
    /// ends through executeThenClose.
    package static func wrap(_ channel: any Channel, dispatcher: MethodDispatcher) throws -> AcceptedClient {
        let writer = SubscriptionWriter { item, view in dispatcher.notificationLine(for: item, view: view) }
        try channel.pipeline.syncOperations.addHandler(writer)
        return AcceptedClient(
            channel: try NIOAsyncChannel<ByteBuffer, ByteBuffer>(synchronouslyWrapping: channel),
            writer: NIOLoopBound(writer, eventLoop: channel.eventLoop))
    }
}

/// How a connection comes to its peer and roles.
enum ClientAdmission: Sendable {
    /// Known when it connects: a Unix-socket peer, by its credentials and `[access]`.
    case admitted(ClientPeer, Set<AccessRole>)
    /// Known after its handshake (`/rpc`: `auth.hello`, `auth.prove`), which must come first and in time.
    case authenticating(WebAuthentication)
}

/// One client on the socket: reads request lines, answers them in order, and, once subscribed,
/// streams the subscription's notifications beside the answers.
///
/// Answers are written by this task through the outbound writer, which suspends while the client
/// is not reading; notifications by the connection's ``SubscriptionWriter`` on its event loop,
/// which stops while the channel is unwritable. A stalled client therefore only stalls itself:
/// its subscription queue fills in the ``EventHub`` and overflows into `events.dropped`, and
/// nothing waits on it elsewhere.
///
/// The client's end of input is not the end of the connection (the server allows remote
/// half-closure, as line-protocol daemons do), so `echo REQUEST | socat - UNIX-CONNECT:...` gets
/// its answer:
/// - every line received before the end of input is answered, a waiting `vas.read` included;
///   then, unless subscribed, the answers are flushed and the connection is closed;
/// - a subscription keeps streaming until the client closes the connection or stops reading.
///
/// A connection that is neither subscribed nor waiting for an answer is closed after
/// `idleTimeout` without a request, with an `idle_timeout` error, so idle clients cannot hold
/// the slots of `max_clients`.
///
/// The same code serves the Unix socket and `/rpc`: a WebSocket connection's pipeline turns each
/// text message into one request `ByteBuffer`, and each answer line into one text message. A
/// `/rpc` connection starts ``ClientAdmission/authenticating(_:)``: its lines go to its
/// ``WebAuthentication`` until the handshake succeeds (every other method is answered
/// `unauthenticated`), a failed handshake closes it, and so does no handshake within the
/// authentication's timeout (`auth_timeout`).
struct ClientConnection {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    /// Streams the subscription, once there is one.
    let writer: NIOLoopBound<SubscriptionWriter>
    let dispatcher: MethodDispatcher
    /// Who connected and the roles that gives it, or how it will tell.
    let admission: ClientAdmission
    /// `[socket] idle_timeout_ms`, or `[web] idle_timeout_ms`.
    let idleTimeout: Duration
    /// Carries the peer's uid and pid (or Origin) on every line.
    let logger: Logger

    /// A connection whose peer and roles are known.
    init(
        channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, writer: NIOLoopBound<SubscriptionWriter>, dispatcher: MethodDispatcher,
        admission: ClientAdmission, idleTimeout: Duration, logger: Logger
    ) {
        self.channel = channel
        self.writer = writer
        self.dispatcher = dispatcher
        self.admission = admission
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    /// Serves the client until it is done (see above), sends an over-long line, closes the
    /// connection, or the task is cancelled.
    ///
    /// When the channel closes (the client went away) the request in flight is cancelled too: a
    /// `vas.read` waiting for a tap leaves its queue at once instead of claiming a tap for nobody.
    /// The end of input alone does not cancel it.
    func run() async {
        do {
            try await channel.executeThenClose { inbound, outbound in
                let activity = ConnectionActivity()
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await serve(inbound, outbound, activity) }
                    group.addTask { await waitUntilClosed() }
                    group.addTask { await closeWhenIdle(activity, outbound) }
                    if case .authenticating(let authentication) = admission {
                        group.addTask { await closeUnlessAuthenticated(within: authentication.timeout, activity, outbound) }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("client connection closed with an error", metadata: ["error": "\(error)"])
        }
    }

    /// Answers the client's lines in order and starts its subscription's stream.
    private func serve(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        _ activity: ConnectionActivity
    ) async {
        var subscription: EventSubscription?
        var inputEnded = false
        var admitted: (peer: ClientPeer, roles: Set<AccessRole>)?
        if case .admitted(let peer, let roles) = admission { admitted = (peer, roles) }
        // The handshake of a `/rpc` connection, until it is done.
        var handshake: WebAuthentication?
        if case .authenticating(let authentication) = admission { handshake = authentication }
        // Ends what a successful handshake registered (the token's slot, the count).
        var endSession: (@Sendable () -> Void)?
        defer { endSession?() }
        do {
            for try await line in inbound {
                if line.readableBytes > NDJSON.maximumLineBytes {
                    await refuseLongLine(outbound)
                    subscription?.cancel()
                    return
                }
                // The idle or auth timer may have closed the connection while this line arrived.
                guard activity.beginRequest() else { return }
                defer { activity.endRequest() }
                guard let (peer, roles) = admitted else {
                    guard handshake != nil else { return }
                    switch handshake!.step(line, channel: channel.channel) {
                    case .silent:
                        continue
                    case .reply(let answer):
                        try await outbound.write(answer)
                    case .admitted(let answer, let peer, let roles, let end):
                        admitted = (peer, roles)
                        endSession = end
                        activity.markAuthenticated()
                        try await outbound.write(answer)
                    case .refused(let answer):
                        try await outbound.write(answer)
                        await flushWrites()
                        return
                    }
                    continue
                }
                let context = RequestContext(roles: roles, alreadySubscribed: subscription != nil, peer: peer)
                switch await dispatcher.handle(line: line, context: context, audit: logger) {
                case .silent:
                    continue
                case .reply(let answer):
                    try await outbound.write(answer)
                case .subscribed(let answer, let newSubscription):
                    subscription = newSubscription
                    activity.markSubscribed()
                    stream(newSubscription, after: answer)
                }
            }
            inputEnded = true
        } catch is ByteToMessageDecoderError.PayloadTooLargeError {
            await refuseLongLine(outbound)
        } catch is NDJSONLineDecoder.UnterminatedLine {
            await refuseUnterminatedLine(outbound)
            inputEnded = true
        } catch {
            logger.debug("client connection ended", metadata: ["error": "\(error)"])
        }
        guard inputEnded else {
            subscription?.cancel()
            return
        }
        logger.debug("the client ended its input")
        // The client half-closed and every line it sent is answered. A subscription goes on
        // streaming until the client closes; otherwise the answers are flushed before the
        // connection closes.
        if subscription == nil {
            await flushWrites()
        } else {
            await waitUntilClosed()
        }
    }

    /// Hands the subscription to the connection's ``SubscriptionWriter``, which writes `answer`
    /// first, then the replay and the live stream.
    ///
    /// Answers written before went through the outbound writer, which hands each line to the
    /// channel's event loop before its `write` returns; this is queued on that loop after them,
    /// so the client reads every earlier answer, then this one, then the events.
    private func stream(_ subscription: EventSubscription, after answer: ByteBuffer?) {
        let writer = self.writer
        writer.eventLoop.execute { writer.value.start(reply: answer, subscription: subscription) }
    }

    /// Returns once the channel is closed (or the task is cancelled).
    ///
    /// The client's end of input does not close the channel (remote half-closure is allowed);
    /// its close does (on Linux, `EPOLLHUP` resets the channel), which this notices while a
    /// request of its is still being answered or its subscription is streaming.
    private func waitUntilClosed() async {
        let (closed, signal) = AsyncStream<Never>.makeStream()
        channel.channel.closeFuture.whenComplete { _ in signal.finish() }
        for await _ in closed {}
    }

    /// Returns (so the connection closes) once it has been idle for `idleTimeout`, after telling
    /// the client why; runs until cancelled otherwise.
    private func closeWhenIdle(_ activity: ConnectionActivity, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        while let wait = activity.closeIfIdle(timeout: idleTimeout, now: .now) {
            do {
                try await Task.sleep(for: wait)
            } catch {
                return  // cancelled: the connection ended otherwise
            }
        }
        let milliseconds = idleTimeout.components.seconds * 1000 + idleTimeout.components.attoseconds / 1_000_000_000_000_000
        let isWeb = if case .authenticating = admission { true } else { false }
        logger.info("closing an idle client", metadata: [isWeb ? "web.idle_timeout_ms" : "socket.idle_timeout_ms": "\(milliseconds)"])
        // A client that does not read could hold the notice (and so the connection) forever.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await writeConnectionError(
                    .idleTimeout(milliseconds: Int(milliseconds), setting: isWeb ? "[web] idle_timeout_ms" : "[socket] idle_timeout_ms"), to: outbound)
                await flushWrites()
            }
            group.addTask { try? await Task.sleep(for: .seconds(1)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns (so the connection closes) when `timeout` passes without a successful `auth`, after
    /// telling the client why; once authenticated, runs until cancelled.
    private func closeUnlessAuthenticated(
        within timeout: Duration, _ activity: ConnectionActivity, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async {
        let deadline = ContinuousClock.now + timeout
        do {
            try await Task.sleep(until: deadline)
            // An `auth` being answered right now decides itself; look again once it is.
            while activity.closeUnlessAuthenticated() == .busy { try await Task.sleep(for: .milliseconds(10)) }
            if activity.closeUnlessAuthenticated() == .authenticated {
                try await Task.sleep(for: .seconds(86_400 * 365))  // until cancelled
                return
            }
        } catch {
            return  // cancelled: the connection ended otherwise
        }
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        logger.info("closing a client that did not authenticate in time", metadata: ["web.auth_timeout_ms": "\(milliseconds)"])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await writeConnectionError(.authTimeout(milliseconds: milliseconds), to: outbound)
                await flushWrites()
            }
            group.addTask { try? await Task.sleep(for: .seconds(1)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Waits until everything written so far has left NIO's buffer for the socket (or failed).
    ///
    /// Closing a channel discards the writes it still holds, so a client that reads its answers
    /// slowly after its end of input would lose the last ones. The outbound writer hands each
    /// line to the channel before ``NIOAsyncChannelOutboundWriter/write(_:)`` returns, and the
    /// channel completes writes in order, so an empty write's completion follows them all.
    private func flushWrites() async {
        try? await channel.channel.writeAndFlush(ByteBuffer()).get()
    }

    private func refuseLongLine(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        logger.info("closing a client that sent a line over the limit", metadata: ["limit": "\(NDJSON.maximumLineBytes)"])
        await writeConnectionError(.lineTooLong(limit: NDJSON.maximumLineBytes), to: outbound)
        await flushWrites()
    }

    /// Answers bytes left after the last newline when the input ended: they are not a line.
    private func refuseUnterminatedLine(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        await writeConnectionError(.unterminatedLine, to: outbound)
    }

    /// Writes an error about the connection itself (no request to answer: its id is `null`).
    private func writeConnectionError(_ error: JSONRPCError, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        let response = JSONRPCResponse<JSONRPCNoResult>(id: .null, error: error)
        if let line = try? NDJSON.encodeLine(response) { try? await outbound.write(line) }
    }
}

/// What a connection is doing, for its idle timeout: when it last sent a request, whether one is
/// being answered, whether it is subscribed.
final class ConnectionActivity: Sendable {
    private struct State {
        var lastRequest = ContinuousClock.now
        var requestsInFlight = 0
        var subscribed = false
        var authenticated = false
        var closing = false
    }

    /// Where a connection stands when its time to authenticate is up.
    enum AuthDeadline: Equatable {
        /// It authenticated: the deadline does not apply.
        case authenticated
        /// A request (an `auth`, perhaps) is being answered: ask again once it is.
        case busy
        /// It did not: it is closing from now on (no further line is served).
        case close
    }
    private let state = Mutex(State())

    /// Counts a request in; `false` once the idle timer has decided to close (the line is then
    /// not served, so no answer is cut off half way).
    func beginRequest() -> Bool {
        state.withLock {
            guard !$0.closing else { return false }
            $0.requestsInFlight += 1
            $0.lastRequest = .now
            return true
        }
    }

    func endRequest() {
        state.withLock {
            $0.requestsInFlight -= 1
            $0.lastRequest = .now
        }
    }

    func markSubscribed() { state.withLock { $0.subscribed = true } }

    func markAuthenticated() { state.withLock { $0.authenticated = true } }

    /// Decides, in one step with ``beginRequest()``, whether the connection missed its deadline
    /// to authenticate.
    func closeUnlessAuthenticated() -> AuthDeadline {
        state.withLock { state in
            if state.authenticated { return .authenticated }
            if state.requestsInFlight > 0 { return .busy }
            state.closing = true
            return .close
        }
    }

    /// Decides, in one step with ``beginRequest()``, whether the connection is idle: `nil` when
    /// it is (and from then on it is closing), else how long to wait before asking again.
    func closeIfIdle(timeout: Duration, now: ContinuousClock.Instant) -> Duration? {
        state.withLock { state in
            // Subscribed, or waiting for an answer: not idle; look again a timeout later.
            guard !state.subscribed, state.requestsInFlight == 0 else { return timeout }
            let left = state.lastRequest + timeout - now
            guard left <= .zero else { return left }
            state.closing = true
            return nil
        }
    }
}
