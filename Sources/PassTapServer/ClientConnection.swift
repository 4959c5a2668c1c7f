import Logging
import NIOCore
import PassTapCore
import PassTapProtocol

/// One client on the socket: reads request lines, answers them in order, and, once subscribed,
/// streams the subscription's notifications beside the answers.
///
/// Answers and notifications are written from two tasks to the same outbound writer, which
/// suspends while the client is not reading. A stalled client therefore only stalls its own
/// tasks: its subscription queue fills in the ``EventHub`` and overflows into `events.dropped`,
/// and nothing waits on it elsewhere.
struct ClientConnection {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let dispatcher: MethodDispatcher
    let logger: Logger

    /// Serves the client until it disconnects, sends an over-long line, or the task is cancelled.
    ///
    /// When the channel closes (the client went away) the request in flight is cancelled too: a
    /// `vas.read` waiting for a tap leaves its queue at once instead of claiming a tap for nobody.
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
            defer { subscription?.cancel() }
            do {
                for try await line in inbound {
                    if line.readableBytes > NDJSON.maximumLineBytes {
                        await refuseLongLine(outbound)
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
            } catch is ByteToMessageDecoderError.PayloadTooLargeError {
                await refuseLongLine(outbound)
            } catch {
                logger.debug("client connection ended", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Returns once the channel is closed (or the task is cancelled).
    ///
    /// The client's end of input closes the channel too (remote half-closure is not enabled), so
    /// this notices a client that went away while a request of its was still being answered.
    private func waitUntilClosed() async {
        let (closed, signal) = AsyncStream<Never>.makeStream()
        channel.channel.closeFuture.whenComplete { _ in signal.finish() }
        for await _ in closed {}
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
    }
}
