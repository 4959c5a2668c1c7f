import NIOCore
import NIOWebSocket
import PassTapProtocol

/// Between NIOWebSocket's frames and the socket's connection code (`ClientConnection`): each text
/// message in becomes one request buffer, as one line is on the Unix socket, and each answer line
/// out becomes one text frame, without its newline. So `/rpc` carries exactly the socket's
/// JSON-RPC, one message per frame.
///
/// It also does the WebSocket's own part (RFC 6455):
/// - a text message may come in fragments (continuation frames), joined up to
///   ``NDJSON/maximumLineBytes``; a longer one is answered with the socket's `line_too_long`
///   error and closed with 1009 (message too big);
/// - a binary frame is closed with 1003 (unsupported data): the protocol is text;
/// - a ping is answered with a pong carrying its data, while the channel can take more; while it
///   cannot (the peer does not read), only the latest ping is kept and answered once it can
///   (RFC 6455 §5.5.3 allows that), and one ping over ``maximumUnansweredPings`` waiting closes
///   the connection with 1008 (policy violation): pings never reach the async channel, whose
///   backpressure would stop reading them, so nothing else bounds the pongs (docs/web.md,
///   "Limits against other local processes");
/// - a close is answered with a close and the connection ends;
/// - when the connection closes from this side (idle timeout, failed `auth`, a reload), a close
///   frame goes first.
///
/// Event-loop bound, one per connection.
final class WebSocketTextCodec: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// Pings that may wait for their pong while the channel cannot take more; one more closes
    /// the connection with 1008 (policy violation). A client that pings to keep its connection
    /// alive sends one every few seconds and reads; 64 unanswered ones come from one that does not.
    static let maximumUnansweredPings = 64

    private let maximumMessageBytes: Int
    /// The text message being joined from fragments.
    private var message: ByteBuffer?
    /// Whether a close frame has been sent.
    private var sentClose = false
    /// The last frame handed on, so an empty write (`flushWrites`) completes after it.
    private var lastWrite: EventLoopFuture<Void>?
    /// The data of the latest ping not answered yet, while the channel cannot take more.
    private var heldPong: ByteBuffer?
    /// Pings received since the channel last could take more, not answered yet.
    private var unansweredPings = 0

    init(maximumMessageBytes: Int = NDJSON.maximumLineBytes) {
        self.maximumMessageBytes = maximumMessageBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text where message == nil:
            message = frame.unmaskedData
            finish(frame, context: context)
        case .continuation where message != nil:
            var data = frame.unmaskedData
            message!.writeBuffer(&data)
            finish(frame, context: context)
        case .binary:
            close(context, code: .unacceptableData)
        case .ping:
            answer(ping: frame.unmaskedData, context: context)
        case .pong:
            break
        case .connectionClose:
            // Answer with the client's code (or none), then end the connection.
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode() ?? .normalClosure
            close(context, code: code)
        default:
            // A continuation with nothing to continue, a text frame inside a message, a reserved opcode.
            close(context, code: .protocolError)
        }
    }

    /// Sends the pong at once if the channel can take it; else keeps it in place of any earlier
    /// one, and closes the connection once too many pings wait.
    private func answer(ping data: ByteBuffer, context: ChannelHandlerContext) {
        guard !context.channel.isWritable else {
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
            return
        }
        heldPong = data
        unansweredPings += 1
        if unansweredPings > Self.maximumUnansweredPings {
            heldPong = nil
            close(context, code: .policyViolation)
        }
    }

    /// Sends the held pong once the channel can take more again.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let data = heldPong {
            heldPong = nil
            unansweredPings = 0
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Hands on the message once its last fragment came; refuses it once it is too long.
    private func finish(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        guard let joined = message else { return }
        if joined.readableBytes > maximumMessageBytes {
            message = nil
            let notice = JSONRPCResponse<JSONRPCNoResult>(id: .null, error: .lineTooLong(limit: maximumMessageBytes))
            if var line = try? NDJSON.encodeLine(notice) {
                Self.dropNewline(&line)
                context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: line)), promise: nil)
            }
            close(context, code: .messageTooLarge)
            return
        }
        guard frame.fin else { return }
        message = nil
        context.fireChannelRead(wrapInboundOut(joined))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var line = unwrapOutboundIn(data)
        guard line.readableBytes > 0 else {
            // An empty write asks when every earlier one is done: it is not a message.
            if let promise { promise.completeWith(lastWrite ?? context.eventLoop.makeSucceededVoidFuture()) }
            return
        }
        Self.dropNewline(&line)
        let written = promise ?? context.eventLoop.makePromise()
        lastWrite = written.futureResult
        context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: line)), promise: written)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !sentClose, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        sentClose = true
        context.writeAndFlush(wrapOutboundOut(Self.closeFrame(.normalClosure, allocator: context.channel.allocator)), promise: nil)
        context.close(mode: mode, promise: promise)
    }

    /// Sends a close frame with `code` and closes the connection.
    private func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        if !sentClose {
            sentClose = true
            context.write(wrapOutboundOut(Self.closeFrame(code, allocator: context.channel.allocator)), promise: nil)
        }
        context.flush()
        context.close(promise: nil)
    }

    private static func closeFrame(_ code: WebSocketErrorCode, allocator: ByteBufferAllocator) -> WebSocketFrame {
        var data = allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    private static func dropNewline(_ line: inout ByteBuffer) {
        if line.readableBytesView.last == UInt8(ascii: "\n") { line.moveWriterIndex(to: line.writerIndex - 1) }
    }
}

@available(*, unavailable)
extension WebSocketTextCodec: Sendable {}
