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
    func run() async {
        do {
            try await channel.executeThenClose { inbound, outbound in
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
        } catch {
            logger.debug("client connection closed with an error", metadata: ["error": "\(error)"])
        }
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
