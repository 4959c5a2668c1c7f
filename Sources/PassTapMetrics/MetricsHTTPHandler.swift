import NIOCore
import NIOHTTP1
import Prometheus

/// Answers one HTTP request on a metrics connection, then closes it: `GET /metrics` gets the
/// registry's text (Prometheus exposition format 0.0.4, written by swift-prometheus), any other
/// path 404, any other method 405.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The Content-Type of Prometheus' text format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let registry: PrometheusCollectorRegistry
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
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
        let status: HTTPResponseStatus
        var headers = HTTPHeaders()
        let body: ByteBuffer
        if path != "/metrics" {
            status = .notFound
            body = context.channel.allocator.buffer(string: "not found: only GET /metrics is served\n")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        } else if request.method != .GET {
            status = .methodNotAllowed
            body = context.channel.allocator.buffer(string: "method not allowed: only GET /metrics is served\n")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Allow", value: "GET")
        } else {
            status = .ok
            body = context.channel.allocator.buffer(bytes: registry.emitToBuffer())
            headers.add(name: "Content-Type", value: Self.contentType)
        }
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable) extension MetricsHTTPHandler: Sendable {}
