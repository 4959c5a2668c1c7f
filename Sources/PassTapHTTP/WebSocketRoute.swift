public import NIOCore
public import NIOHTTP1
import NIOWebSocket

/// The one path of an ``HTTPListener`` that upgrades to a WebSocket (RFC 6455), with NIOWebSocket.
///
/// A `GET` of ``path`` with `Upgrade: websocket`, `Sec-WebSocket-Key` and `Sec-WebSocket-Version:
/// 13`, whose `Host` the listener's ``HostHeaderCheck`` accepted, is handed to ``shouldUpgrade``,
/// which checks the rest (the `Origin`...). On ``WebSocketUpgradeDecision/accept(_:)`` the listener
/// answers 101, takes the HTTP handlers and its request guard (size and deadline) out of the
/// pipeline, adds NIOWebSocket's frame encoder and decoder (frames up to ``maximumFrameSize``;
/// protocol errors answered with a close frame), and calls ``upgraded`` to add the route's own
/// handlers, which then own the connection's limits. On ``WebSocketUpgradeDecision/refuse(_:)``
/// the client gets that answer and the connection closes. A request to ``path`` that asks no
/// upgrade, or a malformed one, goes to ``HTTPRoutes/respond``.
public struct WebSocketRoute: Sendable {
    /// The path that upgrades (`/rpc`); the query is not looked at.
    public var path: String
    /// The largest frame the decoder accepts; a larger one is a protocol error (close 1009).
    public var maximumFrameSize: Int
    /// Decides an upgrade request, on the connection's event loop: must not block.
    public var shouldUpgrade: @Sendable (any Channel, HTTPRequestHead) -> EventLoopFuture<WebSocketUpgradeDecision>
    /// Adds the upgraded connection's handlers, after the frame codec (inbound `WebSocketFrame`).
    public var upgraded: @Sendable (any Channel, HTTPRequestHead) -> EventLoopFuture<Void>

    /// A route upgrading `path`, deciding with `shouldUpgrade` and configuring with `upgraded`.
    public init(
        path: String, maximumFrameSize: Int,
        shouldUpgrade: @escaping @Sendable (any Channel, HTTPRequestHead) -> EventLoopFuture<WebSocketUpgradeDecision>,
        upgraded: @escaping @Sendable (any Channel, HTTPRequestHead) -> EventLoopFuture<Void>
    ) {
        self.path = path
        self.maximumFrameSize = maximumFrameSize
        self.shouldUpgrade = shouldUpgrade
        self.upgraded = upgraded
    }

    /// NIOWebSocket's upgrader for one connection. A refusal is left in `refusal`, where the
    /// connection's ``HTTPRequestHandler`` finds it when the request reaches it.
    func upgrader(hostCheck: HostHeaderCheck, refusal: NIOLoopBoundBox<HTTPResponse?>) -> NIOWebSocketServerUpgrader {
        NIOWebSocketServerUpgrader(
            maxFrameSize: maximumFrameSize,
            shouldUpgrade: { [path, shouldUpgrade] channel, head in
                // Not this path, or a Host the check refuses: no upgrade, and the request handler
                // answers (404, 400, 421...) as for any request.
                let hosts = head.headers["host"]
                guard head.path == path, hosts.count == 1, hostCheck.accepts(hosts[0], port: channel.localAddress?.port ?? 0) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                return shouldUpgrade(channel, head).hop(to: channel.eventLoop).map { decision in
                    switch decision {
                    case .accept(let headers):
                        return headers
                    case .refuse(let answer):
                        refusal.value = answer
                        return nil
                    }
                }
            },
            upgradePipelineHandler: upgraded)
    }
}

/// What ``WebSocketRoute/shouldUpgrade`` decided.
public enum WebSocketUpgradeDecision: Sendable {
    /// Upgrade, adding these headers to the 101 answer (NIOWebSocket adds `Upgrade`, `Connection`
    /// and `Sec-WebSocket-Accept`).
    case accept(HTTPHeaders)
    /// Do not upgrade: answer this (403 for an Origin not allowed...) and close.
    case refuse(HTTPResponse)
}
