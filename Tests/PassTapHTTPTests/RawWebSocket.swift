import Foundation
import NIOCore
import NIOPosix
import PassTapTestSupport

/// A WebSocket client written from RFC 6455 by hand over a plain TCP connection (not with
/// NIOWebSocket, the code under test): the handshake, masked text frames out, frames in.
struct RawWebSocket {
    /// RFC 6455 §1.3's example key, and the `Sec-WebSocket-Accept` it must get.
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let expectedAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    struct Closed: Error {}

    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var buffer = ByteBuffer()

    /// Connects to `address`, runs `body` with the connection, then closes it.
    static func connect<Value: Sendable>(to address: SocketAddress, _ body: (inout RawWebSocket) async throws -> Value) async throws -> Value {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(to: address) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var socket = RawWebSocket(inbound: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&socket)
        }
    }

    /// The upgrade request for `/rpc` on `port`, with `origin` when given.
    static func handshake(port: Int, host: String? = nil, origin: String? = nil, path: String = "/rpc") -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        return request + "\r\n"
    }

    private init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound
        self.outbound = outbound
    }

    mutating func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Reads an HTTP answer's head, up to the blank line.
    mutating func readHead() async throws -> RawHTTP.Answer {
        while true {
            let text = String(buffer: buffer)
            if let end = text.range(of: "\r\n\r\n") {
                buffer.moveReaderIndex(forwardBy: text[..<end.upperBound].utf8.count)
                return try RawHTTP.Answer(parsing: String(text[..<end.upperBound]))
            }
            try await fill()
        }
    }

    /// Sends one masked text frame (RFC 6455 §5.2, §5.3); `text` under 126 bytes.
    mutating func sendText(_ text: String) async throws {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var frame = ByteBuffer(bytes: [0x81, 0x80 | UInt8(payload.count)] + mask)
        frame.writeBytes(payload.enumerated().map { $0.element ^ mask[$0.offset % 4] })
        try await outbound.write(frame)
    }

    /// Reads one unmasked frame from the server (payload under 126 bytes): its opcode and text.
    mutating func readFrame() async throws -> (opcode: UInt8, text: String) {
        while buffer.readableBytes < 2 { try await fill() }
        let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self)!
        let length = Int(buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)! & 0x7F)
        precondition(length < 126)
        while buffer.readableBytes < 2 + length { try await fill() }
        buffer.moveReaderIndex(forwardBy: 2)
        return (first & 0x0F, buffer.readString(length: length)!)
    }

    private mutating func fill() async throws {
        do {
            guard var chunk = try await inbound.next() else { throw Closed() }
            buffer.writeBuffer(&chunk)
        } catch let error as ChannelError where error == .inputClosed || error == .eof {
            throw Closed()
        }
    }
}
