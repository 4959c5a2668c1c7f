import NIOCore
import NIOHTTP1
import Prometheus

/// Answers one HTTP request on a metrics connection, then closes it: `GET /metrics` gets the
/// registry's text (Prometheus exposition format 0.0.4, written by swift-prometheus), any other
/// path 404, any other method 405. A request without exactly one `Host` header gets 400, and one
/// whose `Host` ``HostHeaderCheck`` refuses gets 421, before its path is looked at.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The Content-Type of Prometheus' text format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let registry: PrometheusCollectorRegistry
    private let hostCheck: HostHeaderCheck
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry, hostCheck: HostHeaderCheck) {
        self.registry = registry
        self.hostCheck = hostCheck
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
            respond(to: request, context: context)
        }
    }

    /// A request NIO could not parse: `HTTPServerProtocolErrorHandler` has answered 400; close.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let hosts = request.headers["host"]
        let port = context.channel.localAddress?.port ?? 0
        if hosts.count != 1 {
            answer(.badRequest, "bad request: send exactly one Host header\n", to: request, context: context)
        } else if !hostCheck.accepts(hosts[0], port: port) {
            answer(.misdirectedRequest, "misdirected request: Host must be localhost:\(port), a loopback address or the listen address\n", to: request, context: context)
        } else if path != "/metrics" {
            answer(.notFound, "not found: only GET /metrics is served\n", to: request, context: context)
        } else if request.method != .GET {
            answer(.methodNotAllowed, "method not allowed: only GET /metrics is served\n", extra: [("Allow", "GET")], to: request, context: context)
        } else {
            let body = context.channel.allocator.buffer(bytes: registry.emitToBuffer())
            write(.ok, body, contentType: Self.contentType, to: request, context: context)
        }
    }

    private func answer(
        _ status: HTTPResponseStatus, _ text: String, extra: [(String, String)] = [], to request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        let body = context.channel.allocator.buffer(string: text)
        write(status, body, contentType: "text/plain; charset=utf-8", extra: extra, to: request, context: context)
    }

    /// Writes the answer, then closes the connection.
    private func write(
        _ status: HTTPResponseStatus, _ body: ByteBuffer, contentType: String, extra: [(String, String)] = [], to request: HTTPRequestHead,
        context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        for (name, value) in extra { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable) extension MetricsHTTPHandler: Sendable {}
