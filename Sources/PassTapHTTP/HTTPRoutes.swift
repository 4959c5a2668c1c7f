public import NIOHTTP1

/// What one ``HTTPListener`` serves: an answer for each request whose `Host` passed the listener's
/// ``HostHeaderCheck``, and optionally one path that upgrades to a WebSocket.
public struct HTTPRoutes: Sendable {
    /// Answers a request (head only; a body is read and ignored). Runs on the connection's event
    /// loop, so it must not block. A request to the WebSocket path that did not upgrade (no
    /// `Upgrade` header, a bad `Sec-WebSocket-Key`...) comes here too.
    public var respond: @Sendable (HTTPRequestHead) -> HTTPResponse
    /// The path that may upgrade to a WebSocket, and how; `nil` for none.
    public var webSocket: WebSocketRoute?

    /// Routes that answer with `respond`, and upgrade as `webSocket` says.
    public init(webSocket: WebSocketRoute? = nil, respond: @escaping @Sendable (HTTPRequestHead) -> HTTPResponse) {
        self.respond = respond
        self.webSocket = webSocket
    }
}

extension HTTPRequestHead {
    /// The URI's path: everything before `?`.
    public var path: Substring {
        uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }
}
