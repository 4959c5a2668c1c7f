import NIOCore
import PassTapCore

/// Writes one connection's subscription to its channel, on the channel's event loop: the last
/// step of the fan-out.
///
/// An event for a thousand subscribers is a thousand writes, so each one is kept short. The hub
/// encoded the event's line of each view when it was published, on the publishing thread (a
/// reader's, which PassTap owns); when it queues the event for this subscriber it asks the
/// channel's event loop to drain (``EventSubscription/poll(orNotify:)``: one hop, no task to
/// wake). The drain writes each item's shared line while the channel is writable, then flushes
/// once; event loops encode only `events.dropped` notices. A client that does not read makes its
/// channel unwritable (NIO's write-buffer watermarks): the drain stops, the items wait in the
/// hub's bounded queue and overflow there into one `events.dropped`, and the drain goes on once
/// the channel is writable again. Nothing else waits for that client. The publishing thread never
/// writes to a socket.
///
/// Every connection's pipeline has one, idle until ``start(reply:subscription:)``. When the
/// channel goes inactive the subscription is cancelled. Event-loop bound: the connection's task
/// reaches it through a `NIOLoopBound`.
final class SubscriptionWriter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The line of an item in a view.
    private let lines: @Sendable (SubscriptionItem, EventView) -> ByteBuffer
    private var context: ChannelHandlerContext?
    private var subscription: EventSubscription?
    /// What the publishing thread calls when an event arrives for an empty queue.
    private var notify: (@Sendable (PublishedEvent) -> Void)?

    /// A writer that writes items as `lines` encodes them.
    init(lines: @escaping @Sendable (SubscriptionItem, EventView) -> ByteBuffer) {
        self.lines = lines
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { drain() }
        context.fireChannelWritabilityChanged()
    }

    /// Writes `reply` (the `events.subscribe` answer, `nil` for a notification), then streams the
    /// subscription until the channel closes. A channel already closed cancels it at once.
    func start(reply: ByteBuffer?, subscription: EventSubscription) {
        guard let context, context.channel.isActive, self.subscription == nil else {
            subscription.cancel()
            return
        }
        self.subscription = subscription
        let writer = NIOLoopBound(self, eventLoop: context.eventLoop)
        notify = { _ in writer.eventLoop.execute { writer.value.drain() } }
        if let reply { context.write(wrapOutboundOut(reply), promise: nil) }
        drain()
        context.flush()
    }

    /// Writes what is queued while the channel takes it; when the queue is empty, asks to be
    /// told of the next item.
    private func drain() {
        guard let context, let subscription, let notify else { return }
        var wrote = false
        var tapSeq: UInt64?
        while context.channel.isWritable, let item = subscription.poll(orNotify: notify) {
            context.write(wrapOutboundOut(lines(item, subscription.view)), promise: nil)
            wrote = true
            if TapTrace.isEnabled, case .event(let published) = item, published.event.kind == .readResult { tapSeq = published.event.seq }
        }
        if wrote { context.flush() }
        if let tapSeq { TapTrace.mark(.written, seq: tapSeq) }
    }

    private func stop() {
        subscription?.cancel()
        subscription = nil
        notify = nil
    }
}

@available(*, unavailable)
extension SubscriptionWriter: Sendable {}
