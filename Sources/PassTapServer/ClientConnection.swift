import Logging
import NIOCore
import NIOExtras
import PassTapCore
import PassTapProtocol

/// One client on the socket: reads request lines, answers them in order, and, once subscribed,
/// streams the subscription's notifications beside the answers.
///
/// Answers and notifications are written from two tasks to the same outbound writer, which
/// suspends while the client is not reading. A stalled client therefore only stalls its own
/// tasks: its subscription queue fills in the ``EventHub`` and overflows into `events.dropped`,
/// and nothing waits on it elsewhere.
///
/// The client's end of input is not the end of the connection (the server allows remote
/// half-closure, as line-protocol daemons do), so `echo REQUEST | socat - UNIX-CONNECT:...` gets
/// its answer:
/// - every line received before the end of input is answered, a waiting `vas.read` included;
///   then, unless subscribed, the answers are flushed and the connection is closed;
/// - a subscription keeps streaming until the client closes the connection or stops reading.
struct ClientConnection {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let dispatcher: MethodDispatcher
    let logger: Logger

    /// Serves the client until it is done (see above), sends an over-long line, closes the
    /// connection, or the task is cancelled.
    ///
    /// When the channel closes (the client went away) the request in flight is cancelled too: a
    /// `vas.read` waiting for a tap leaves its queue at once instead of claiming a tap for nobody.
    /// The end of input alone does not cancel it.
    func run() async {
        do {
            try await channel.executeThenClose { inbound, outbound in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await serve(inbound, outbound) }
                    group.addTask { await waitUntilClosed() }
                    await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("client connection closed with an error", metadata: ["error": "\(error)"])
        }
    }

    /// Answers the client's lines in order and pumps its subscription.
    private func serve(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async {
        await withDiscardingTaskGroup { group in
            var subscription: EventSubscription?
            var inputEnded = false
            do {
                for try await line in inbound {
                    if line.readableBytes > NDJSON.maximumLineBytes {
                        await refuseLongLine(outbound)
                        subscription?.cancel()
                        return
                    }
                    switch await dispatcher.handle(line: line, alreadySubscribed: subscription != nil) {
                    case .silent:
                        continue
                    case .reply(let answer):
                        try await outbound.write(answer)
                    case .subscribed(let answer, let newSubscription):
                        if let answer { try await outbound.write(answer) }
                        subscription = newSubscription
                        group.addTask { await pump(newSubscription, to: outbound) }
                    }
                }
                inputEnded = true
            } catch is ByteToMessageDecoderError.PayloadTooLargeError {
                await refuseLongLine(outbound)
            } catch is NIOExtrasErrors.LeftOverBytesError {
                await refuseUnterminatedLine(outbound)
                inputEnded = true
            } catch {
                logger.debug("client connection ended", metadata: ["error": "\(error)"])
            }
            guard inputEnded else {
                subscription?.cancel()
                return
            }
            // The client half-closed and every line it sent is answered. A subscription's pump
            // goes on (this group waits for it); otherwise the answers are flushed before the
            // connection closes.
            if subscription == nil { await flushWrites() }
        }
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

    /// Waits until everything written so far has left NIO's buffer for the socket (or failed).
    ///
    /// Closing a channel discards the writes it still holds, so a client that reads its answers
    /// slowly after its end of input would lose the last ones. The outbound writer hands each
    /// line to the channel before ``NIOAsyncChannelOutboundWriter/write(_:)`` returns, and the
    /// channel completes writes in order, so an empty write's completion follows them all.
    private func flushWrites() async {
        try? await channel.channel.writeAndFlush(ByteBuffer()).get()
    }

    /// Writes the subscription's items until it ends or the client goes away.
    private func pump(_ subscription: EventSubscription, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        do {
            for await item in subscription {
                try await outbound.write(dispatcher.notificationLine(for: item))
            }
        } catch {
            subscription.cancel()
            logger.debug("subscriber write failed", metadata: ["error": "\(error)"])
        }
    }

    private func refuseLongLine(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        logger.info("closing a client that sent a line over the limit", metadata: ["limit": "\(NDJSON.maximumLineBytes)"])
        let error = JSONRPCResponse<JSONRPCNoResult>(id: .null, error: .lineTooLong(limit: NDJSON.maximumLineBytes))
        if let line = try? NDJSON.encodeLine(error) { try? await outbound.write(line) }
        await flushWrites()
    }

    /// Answers bytes left after the last newline when the input ended: they are not a line.
    private func refuseUnterminatedLine(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async {
        let error = JSONRPCResponse<JSONRPCNoResult>(id: .null, error: .unterminatedLine)
        if let line = try? NDJSON.encodeLine(error) { try? await outbound.write(line) }
    }
}
