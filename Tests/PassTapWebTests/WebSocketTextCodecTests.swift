import NIOCore
import NIOEmbedded
import NIOWebSocket
import PassTapProtocol
import Testing

@testable import PassTapWeb

/// The codec between NIOWebSocket's frames and the socket's connection code, on an embedded
/// channel: one request buffer per text message, one text frame per answer line.
@Suite struct WebSocketTextCodecTests {
    static func channel(limit: Int = 64) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketTextCodec(maximumMessageBytes: limit))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(string: text))
    }

    static func closeCode(_ frame: WebSocketFrame?) -> WebSocketErrorCode? {
        guard var data = frame?.data, frame?.opcode == .connectionClose else { return nil }
        return data.readWebSocketErrorCode()
    }

    @Test func aFragmentedTextMessageIsOneRequest() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.frame(.text, #"{"jsonrpc":"2.0","#, fin: false))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        try channel.writeInbound(Self.frame(.continuation, #""id":1,"method":"status"}"#))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"status"}"#))
    }

    @Test func anAnswerLineIsOneTextFrameWithoutItsNewlineAndAnEmptyWriteSendsNothing() throws {
        let channel = try Self.channel()
        try channel.writeOutbound(ByteBuffer(string: "{\"id\":1}\n"))
        let frame = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(frame.opcode == .text && frame.fin && frame.data == ByteBuffer(string: "{\"id\":1}"))
        let flushed = channel.writeAndFlush(ByteBuffer())
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        try flushed.wait()
    }

    @Test func aMessageOverTheLimitGetsLineTooLongAndClose1009() throws {
        let channel = try Self.channel(limit: 16)
        try channel.writeInbound(Self.frame(.text, "0123456789", fin: false))
        try channel.writeInbound(Self.frame(.continuation, "0123456789", fin: false))
        let notice = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(String(buffer: notice.data).contains("\"line_too_long\""))
        #expect(Self.closeCode(try channel.readOutbound(as: WebSocketFrame.self)) == .messageTooLarge)
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        #expect(!channel.isActive)
    }

    @Test func aBinaryFrameIsClosedWith1003() throws {
        let channel = try Self.channel()
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: [1, 2, 3])))
        #expect(Self.closeCode(try channel.readOutbound(as: WebSocketFrame.self)) == .unacceptableData)
        #expect(!channel.isActive)
    }

    @Test func aContinuationWithoutAMessageIsAProtocolError() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.frame(.continuation, "x"))
        #expect(Self.closeCode(try channel.readOutbound(as: WebSocketFrame.self)) == .protocolError)
    }

    @Test func aPingGetsItsPongAndACloseIsAnsweredWithTheClientsCode() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.frame(.ping, "hi"))
        let pong = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(pong.opcode == .pong && pong.data == ByteBuffer(string: "hi"))
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .goingAway)
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
        #expect(Self.closeCode(try channel.readOutbound(as: WebSocketFrame.self)) == .goingAway)
        #expect(!channel.isActive)
    }

    /// docs/web.md, "Limits against other local processes": a peer that sends pings and never
    /// reads. While the channel cannot
    /// take more, no pong is queued, and the connection closes with 1008 once too many pings
    /// wait: 100 000 pings leave one close frame queued, not 100 000 pongs.
    @Test func pingsWhileUnwritableQueueNoPongAndTooManyClose1008() throws {
        let channel = try Self.channel()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        var fed = 0
        while fed < 100_000, channel.isActive {
            try channel.writeInbound(Self.frame(.ping, "ping \(fed)"))
            fed += 1
        }
        var queued: [WebSocketFrame] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { queued.append(frame) }
        #expect(fed == WebSocketTextCodec.maximumUnansweredPings + 1, "closed after \(fed) pings")
        #expect(queued.count == 1 && Self.closeCode(queued.first) == .policyViolation, "\(queued)")
        #expect(!channel.isActive)
    }

    /// RFC 6455 §5.5.3: pings that came while the channel could not take more get one pong, for
    /// the latest of them, once it can; then pings are answered one by one again.
    @Test func pingsWhileUnwritableGetOnePongForTheLatestOnceWritable() throws {
        let channel = try Self.channel()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        for text in ["a", "b", "c"] { try channel.writeInbound(Self.frame(.ping, text)) }
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let pong = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(pong.opcode == .pong && pong.data == ByteBuffer(string: "c"))
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil)
        try channel.writeInbound(Self.frame(.ping, "d"))
        #expect(try channel.readOutbound(as: WebSocketFrame.self)?.data == ByteBuffer(string: "d"))
        #expect(channel.isActive)
    }

    @Test func closingFromThisSideSendsANormalClose() throws {
        let channel = try Self.channel()
        try channel.close().wait()
        #expect(Self.closeCode(try channel.readOutbound(as: WebSocketFrame.self)) == .normalClosure)
    }
}
