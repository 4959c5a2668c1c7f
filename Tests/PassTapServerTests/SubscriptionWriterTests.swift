import Foundation
import NIOCore
import NIOEmbedded
import PassTapCore
import PassTapProtocol
import Testing

@testable import PassTapServer

/// The connection's subscription writer on an embedded channel: the answer first, then the
/// replay and live events; nothing written while the channel is unwritable, the hub's queue
/// overflowing into one `events.dropped` meanwhile; the subscription ends with the channel.
@Suite(.timeLimit(.minutes(1))) struct SubscriptionWriterTests {
    static let reader = ReaderID.pcsc("Zeta Reader 00 00")

    /// An active embedded channel with a writer that writes lines as the server does.
    static func channel() throws -> (EmbeddedChannel, SubscriptionWriter) {
        let dispatcher = MethodDispatcher(handlers: [])
        let writer = SubscriptionWriter { item, view in dispatcher.notificationLine(for: item, view: view) }
        let channel = EmbeddedChannel(handler: writer)
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/unused.sock")).wait()
        return (channel, writer)
    }

    /// What the writer wrote so far, one line each: `answer`, `#seq` for an event, `dropped count`.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var lines: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let text = String(buffer: buffer)
            let message = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let params = message["params"] as? [String: Any]
            switch message["method"] as? String {
            case "event": lines.append("#\(params?["seq"] as? Int ?? -1)")
            case "events.dropped": lines.append("dropped \(params?["count"] as? Int ?? -1)")
            default: lines.append("answer")
            }
        }
        return lines
    }

    @Test func theAnswerComesFirstThenTheReplayThenLiveEvents() throws {
        let (channel, writer) = try Self.channel()
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8)
        for _ in 0..<2 { hub.publish(.cardRemoved, reader: Self.reader, payload: .cardRemoved) }
        let subscription = try hub.subscribe(since: 1, queueLimit: 4)
        writer.start(reply: ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"result":{}}"# + "\n"), subscription: subscription)
        #expect(try Self.written(channel) == ["answer", "#1", "#2"])
        hub.publish(.cardRemoved, reader: Self.reader, payload: .cardRemoved)
        channel.embeddedEventLoop.run()  // the publisher handed the drain to the channel's loop
        #expect(try Self.written(channel) == ["#3"])
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aLiveEventIsEncodedByThePublisherAndTheEventLoopOnlyWritesIt() throws {
        let encodings = Counter()
        let (channel, writer) = try Self.channel()
        let hub = EventHub(lineEncoder: CountingEventEncoder(counter: encodings), capacity: 8)
        writer.start(reply: nil, subscription: try hub.subscribe(since: nil, queueLimit: 4))
        hub.publish(.cardRemoved, reader: Self.reader, payload: .cardRemoved)
        // The loop has not run yet: the publishing thread made the line, the loop only writes it.
        #expect(encodings.value == 1)
        #expect(try Self.written(channel) == [])
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["#1"])
        #expect(encodings.value == 1)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func anUnwritableChannelLeavesEventsInTheHubWhichReportsWhatOverflowed() throws {
        let (channel, writer) = try Self.channel()
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 16)
        writer.start(reply: nil, subscription: try hub.subscribe(since: nil, queueLimit: 2))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        for _ in 0..<5 { hub.publish(.cardRemoved, reader: Self.reader, payload: .cardRemoved) }
        channel.embeddedEventLoop.run()
        // Nothing is written; two events wait in the queue (its limit), the other three overflow.
        #expect(try Self.written(channel) == [])
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try Self.written(channel) == ["#1", "#2", "dropped 3"])
        hub.publish(.cardRemoved, reader: Self.reader, payload: .cardRemoved)
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel) == ["#6"])
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func closingTheChannelEndsTheSubscription() throws {
        let (channel, writer) = try Self.channel()
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8)
        writer.start(reply: nil, subscription: try hub.subscribe(since: nil, queueLimit: 4))
        #expect(hub.subscriberCount == 1)
        try channel.close().wait()
        #expect(hub.subscriberCount == 0)
    }

    @Test func aSubscriptionStartedAfterTheChannelClosedEndsAtOnce() throws {
        let (channel, writer) = try Self.channel()
        try channel.close().wait()
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8)
        writer.start(reply: nil, subscription: try hub.subscribe(since: nil, queueLimit: 4))
        #expect(hub.subscriberCount == 0)
    }
}
