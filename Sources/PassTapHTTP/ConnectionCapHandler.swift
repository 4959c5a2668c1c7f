import NIOCore
import Synchronization

/// In an ``HTTPListener``'s own pipeline, before NIO's accept handler: counts the connections the
/// listener holds, and closes one more than `limit` as soon as it is accepted, before any handler,
/// buffer or timer is set up for it. Its file descriptor lives only from `accept(2)` to that
/// `close(2)`, so a flood of connections cannot take the daemon's descriptors
/// (`[metrics] max_connections`, `[web] max_clients`; `docs/operations.md`, "File descriptors").
final class ConnectionCapHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let limit: Int
    private let open: OpenConnections

    init(limit: Int, open: OpenConnections) {
        self.limit = limit
        self.open = open
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let accepted = unwrapInboundIn(data)
        guard open.take(limit: limit) else {
            // Not registered with an event loop yet: this only closes the descriptor.
            accepted.close(promise: nil)
            return
        }
        let open = self.open
        accepted.closeFuture.whenComplete { _ in open.release() }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable) extension ConnectionCapHandler: Sendable {}

/// How many connections a listener holds now: taken on accept, given back when the connection
/// closes, on whichever event loop that happens.
final class OpenConnections: Sendable {
    private let count = Atomic<Int>(0)

    /// The connections held now.
    var current: Int { count.load(ordering: .relaxed) }

    /// Takes a slot; `false` (nothing taken) when `limit` are held.
    func take(limit: Int) -> Bool {
        var seen = count.load(ordering: .relaxed)
        while seen < limit {
            let (exchanged, original) = count.compareExchange(expected: seen, desired: seen + 1, ordering: .relaxed)
            if exchanged { return true }
            seen = original
        }
        return false
    }

    /// Gives back a slot ``take(limit:)`` took.
    func release() {
        count.subtract(1, ordering: .relaxed)
    }
}
