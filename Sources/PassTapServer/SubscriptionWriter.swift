import NIOCore
import PassTapCore

/// Writes one connection's subscription to its channel, on the channel's event loop: the last
/// step of the fan-out.
///
/// An event for a thousand subscribers is a thousand writes, so each one is kept short. When the
/// hub queues an event for this subscriber, the publishing thread (a reader's, which PassTap owns)
/// makes sure the event's line in this subscriber's view exists (the first subscriber of a view
/// encodes it there, the others find it made: ``MethodDispatcher/notificationLine(for:view:)``),
/// then asks the channel's event loop to drain (``EventSubscription/poll(orNotify:)``: one hop,
/// no task to wake). The drain writes each item's shared line while the channel is writable, then
/// flushes once; event loops thus encode only what is not live (a replay, an `events.dropped`). A client that does not read makes its channel unwritable (NIO's
/// write-buffer watermarks): the drain stops, the items wait in the hub's bounded queue and
/// overflow there into one `events.dropped`, and the drain goes on once the channel is writable
/// again. Nothing else waits for that client.
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
        let lines = self.lines
        let view = subscription.view
        notify = { published in
            _ = lines(.event(published), view)  // encoded here, once per view, not on the event loop
            writer.eventLoop.execute { writer.value.drain() }
        }
        if let reply { context.write(wrapOutboundOut(reply), promise: nil) }
        drain()
        context.flush()
    }

    /// Writes what is queued while the channel takes it; when the queue is empty, asks to be
    /// told of the next item.
    private func drain() {
        guard let context, let subscription, let notify else { return }
        var wrote = false
        while context.channel.isWritable, let item = subscription.poll(orNotify: notify) {
            context.write(wrapOutboundOut(lines(item, subscription.view)), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
    }

    private func stop() {
        subscription?.cancel()
        subscription = nil
        notify = nil
    }
}

@available(*, unavailable)
extension SubscriptionWriter: Sendable {}
