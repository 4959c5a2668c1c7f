import Foundation
public import NIOCore
import PassTapCore
import PassTapProtocol

/// The body a webhook receives for one event, with the Standard Webhooks payload members:
///
/// ```json
/// {"data":EVENT,"id":"6F1C...:42","source":"till-3","timestamp":"2026-11-26T21:04:05.123Z","type":"read.result"}
/// ```
///
/// Written by composition around the event: `data` is the event's JSON object as stored
/// (``OutboxItem/event``, the bytes the hub encoded once at publish time), copied in, neither
/// decoded nor encoded again; the other members are strings, each encoded by the wire's encoder
/// (``NDJSON/makeEncoder()``). The members are written in sorted key order, as on the socket.
public enum ForwardEnvelope {
    /// The body of `item`.
    public static func body(for item: OutboxItem, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        let encoder = NDJSON.makeEncoder()
        var buffer = allocator.buffer(capacity: item.event.readableBytes + 160)
        buffer.writeString(#"{"data":"#)
        buffer.writeImmutableBuffer(item.event)
        buffer.writeString(#","id":"#)
        write(item.id, with: encoder, to: &buffer)
        buffer.writeString(#","source":"#)
        write(item.source, with: encoder, to: &buffer)
        buffer.writeString(#","timestamp":"#)
        write(RFC3339.string(from: item.time), with: encoder, to: &buffer)
        buffer.writeString(#","type":"#)
        write(item.kind.rawValue, with: encoder, to: &buffer)
        buffer.writeString("}")
        return buffer
    }

    /// Writes `text` as a JSON string, as `encoder` encodes it (a string always encodes; the
    /// empty string stands in should one not).
    private static func write(_ text: String, with encoder: JSONEncoder, to buffer: inout ByteBuffer) {
        buffer.writeBytes((try? encoder.encode(text)) ?? Data(#""""#.utf8))
    }
}
