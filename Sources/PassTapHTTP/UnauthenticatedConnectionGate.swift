import NIOCore

/// In an ``HTTPListener``'s own pipeline, after the ``ConnectionCapHandler``: counts each accepted
/// connection among the ``UnauthenticatedConnections`` under its peer's user, or closes it as soon
/// as it is accepted when that user (or every user together) holds all the places, before any
/// handler, buffer or timer is set up for it. The peer's user is asked of the kernel without
/// waiting (``LoopbackPeerOwner``), so nothing here blocks the event loop.
final class UnauthenticatedConnectionGate: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let connections: UnauthenticatedConnections

    init(_ connections: UnauthenticatedConnections) {
        self.connections = connections
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let accepted = unwrapInboundIn(data)
        guard connections.admit(accepted) else {
            // Not registered with an event loop yet: this only closes the descriptor.
            accepted.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable) extension UnauthenticatedConnectionGate: Sendable {}
