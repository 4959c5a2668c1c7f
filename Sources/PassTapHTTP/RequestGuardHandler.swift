import NIOCore

/// First in an ``HTTPListener`` connection's pipeline: closes it once it has sent more than
/// `maximumBytes`, or when `deadline` passes from its start (a slow or idle client), so neither
/// a long head nor a trickle can hold a connection. A WebSocket upgrade removes it: the upgraded
/// connection has the limits its route gives it.
final class RequestGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let maximumBytes: Int
    private let deadline: TimeAmount
    private var received = 0
    private var timer: Scheduled<Void>?

    init(maximumBytes: Int, deadline: TimeAmount) {
        self.maximumBytes = maximumBytes
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        guard received <= maximumBytes else {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable) extension RequestGuardHandler: Sendable {}
