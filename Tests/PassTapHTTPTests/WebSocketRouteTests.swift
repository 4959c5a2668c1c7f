import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import PassTapHTTP
import PassTapTestNetwork
import PassTapTestSupport
import Testing

/// `WebSocketRoute` on the real stack: an `HTTPListener` on 127.0.0.1 (NIOPosix), driven by a
/// WebSocket client written by hand over TCP.
@Suite(.timeLimit(.minutes(1))) struct WebSocketRouteTests {
    /// Echoes each text frame back.
    final class Echo: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            guard frame.opcode == .text else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: frame.unmaskedData)), promise: nil)
        }
    }

    /// `/rpc` upgrades to an echo, unless the Origin is `http://refused.example` (403) or
    /// `http://later.example` (429, decided on another event loop); every other request gets
    /// 426 on `/rpc` and 404 elsewhere. `asked` counts the decisions.
    static func routes(asked: Counter) -> HTTPRoutes {
        let route = WebSocketRoute(
            path: "/rpc", maximumFrameSize: 1024,
            shouldUpgrade: { channel, head in
                asked.increment()
                switch head.headers["origin"].first {
                case "http://refused.example":
                    return channel.eventLoop.makeSucceededFuture(.refuse(.text(.forbidden, "forbidden: origin not allowed\n")))
                case "http://later.example":
                    let elsewhere = MultiThreadedEventLoopGroup.singleton.any()
                    return elsewhere.submit { .refuse(.text(.tooManyRequests, "too many\n")) }
                default:
                    return channel.eventLoop.makeSucceededFuture(.accept(["X-Route": "rpc"]))
                }
            },
            upgraded: { channel, _ in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
            })
        return HTTPRoutes(webSocket: route) { head in
            head.path == "/rpc"
                ? .text(.upgradeRequired, "upgrade required: /rpc is a WebSocket\n", headers: [("Upgrade", "websocket")])
                : .text(.notFound, "not found\n")
        }
    }

    @Test func anAcceptedUpgradeEchoesAndOutlivesTheRequestDeadline() async throws {
        // The handshake itself must finish within the deadline: 200 ms was missed once on a
        // loaded 2-core machine, so the deadline is 2 s (the second connection's close waits it out).
        let limits = HTTPListenerLimits(maximumConnections: 8, maximumRequestBytes: 8192, requestDeadline: .seconds(2))
        try await withListener(Self.routes(asked: Counter()), limits: limits) { address in
            let port = try #require(address.port)
            let socket = try WebSocketClient(port: port)
            let head = try await offThePool {
                try RawHTTP.Answer(parsing: socket.upgrade(path: "/rpc", host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)").head)
            }
            #expect(head.statusLine == "HTTP/1.1 101 Switching Protocols")
            #expect(head.headers["sec-websocket-accept"] == WebSocketClient.expectedAccept)
            #expect(head.headers["x-route"] == "rpc")
            try socket.sendText("hello")
            let echo = try await offThePool { try socket.read() }
            #expect(echo == .text("hello"))
                // A connection accepted after this one, sending nothing, is closed at its
                // deadline, which comes after this one's would have.
            #expect(try await RawHTTP.exchange("", with: address).isEmpty)
            try socket.sendText("still here")
            let later = try await offThePool { try socket.read() }
            #expect(later == .text("still here"))
        }
    }

    @Test(arguments: [("http://refused.example", "403 Forbidden"), ("http://later.example", "429 Too Many Requests")])
    func aRefusedUpgradeGetsTheAnswerTheRouteChose(origin: String, status: String) async throws {
        let asked = Counter()
        try await withListener(Self.routes(asked: asked)) { address in
            let port = try #require(address.port)
            // Read until the server closes: the refusal ends the connection.
            let answer = try await RawHTTP.answer(WebSocketClient.upgradeRequest(host: "127.0.0.1:\(port)", origin: origin), with: address)
            #expect(answer.statusLine == "HTTP/1.1 \(status)")
            #expect(answer.headers["connection"] == "close")
            #expect(answer.headers["upgrade"] == nil && answer.headers["sec-websocket-accept"] == nil)
            #expect(asked.value == 1)
        }
    }

    @Test func aHostTheCheckRefusesGets421BeforeTheRouteIsAsked() async throws {
        let asked = Counter()
        try await withListener(Self.routes(asked: asked)) { address in
            let port = try #require(address.port)
            let rebound = try await RawHTTP.answer(WebSocketClient.upgradeRequest(host: "evil.example:\(port)"), with: address)
            #expect(rebound.statusLine == "HTTP/1.1 421 Misdirected Request")
            let none = try await RawHTTP.answer(WebSocketClient.upgradeRequest(host: "127.0.0.1:\(port)").replacingOccurrences(of: "Host: 127.0.0.1:\(port)\r\n", with: ""), with: address)
            #expect(none.statusLine == "HTTP/1.1 400 Bad Request")
            #expect(asked.value == 0)
        }
    }

    @Test func requestsThatDoNotUpgradeGoToTheRoutes() async throws {
        let asked = Counter()
        try await withListener(Self.routes(asked: asked)) { address in
            let port = try #require(address.port)
            let plain = try await RawHTTP.answer("GET /rpc HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
            #expect(plain.statusLine == "HTTP/1.1 426 Upgrade Required")
            let otherPath = try await RawHTTP.answer(WebSocketClient.upgradeRequest(path: "/other", host: "127.0.0.1:\(port)"), with: address)
            #expect(otherPath.statusLine == "HTTP/1.1 404 Not Found")
            let badVersion = try await RawHTTP.answer(
                WebSocketClient.upgradeRequest(host: "127.0.0.1:\(port)").replacingOccurrences(of: "Version: 13", with: "Version: 8"), with: address)
            #expect(badVersion.statusLine == "HTTP/1.1 426 Upgrade Required")
            #expect(asked.value == 0)
        }
    }
}
