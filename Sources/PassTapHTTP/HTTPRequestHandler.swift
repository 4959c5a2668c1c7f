import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers the one HTTP request of an ``HTTPListener`` connection, then closes it. A request
/// without exactly one `Host` header gets 400, and one whose `Host` ``HostHeaderCheck`` refuses
/// gets 421, before the routes see it; a refused WebSocket upgrade gets the answer its route
/// chose; anything else gets what ``HTTPRoutes/respond`` returns.
final class HTTPRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (HTTPRequestHead) -> HTTPResponse
    private let hostCheck: HostHeaderCheck
    private let refusal: NIOLoopBoundBox<HTTPResponse?>?
    private var head: HTTPRequestHead?

    /// `refusal` is where a refused WebSocket upgrade leaves its answer (``WebSocketRoute``).
    init(respond: @escaping @Sendable (HTTPRequestHead) -> HTTPResponse, hostCheck: HostHeaderCheck, refusal: NIOLoopBoundBox<HTTPResponse?>?) {
        self.respond = respond
        self.hostCheck = hostCheck
        self.refusal = refusal
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
        case .body:
            break
        case .end:
            guard let request = head else { return }
            head = nil
            write(answer(to: request, context: context), to: request, context: context)
        }
    }

    /// A request NIO could not parse: `HTTPServerProtocolErrorHandler` has answered 400; close.
    /// A WebSocket upgrade that did not happen is reported here before its request arrives, which
    /// is then answered.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }

    private func answer(to request: HTTPRequestHead, context: ChannelHandlerContext) -> HTTPResponse {
        let hosts = request.headers["host"]
        let port = context.channel.localAddress?.port ?? 0
        if hosts.count != 1 {
            return .text(.badRequest, "bad request: send exactly one Host header\n")
        }
        if !hostCheck.accepts(hosts[0], port: port) {
            return .text(.misdirectedRequest, "misdirected request: Host must be localhost:\(port), a loopback address or the listen address\n")
        }
        if let refused = refusal?.value {
            refusal?.value = nil
            return refused
        }
        return respond(request)
    }

    /// Writes the answer, then closes the connection.
    private func write(_ response: HTTPResponse, to request: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = response.headers
        headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.readableBytes)")
        headers.replaceOrAdd(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: response.status, headers: headers))), promise: nil)
        if !response.omitsBody { context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable) extension HTTPRequestHandler: Sendable {}
