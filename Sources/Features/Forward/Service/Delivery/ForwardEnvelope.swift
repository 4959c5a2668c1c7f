import Foundation
public import NIOCore
import PassTapCore

/// The body a webhook receives for one event, with the Standard Webhooks payload members:
///
/// ```json
/// {"data":EVENT,"id":"6F1C...:42","source":"till-3","timestamp":"2026-11-26T21:04:05.123Z","type":"read.result"}
/// ```
///
/// `data` is the event's JSON object as stored (``OutboxItem/event``), copied in, not encoded
/// again; the other members are short strings. Keys are sorted, as on the socket.
public enum ForwardEnvelope {
    /// The body of `item`.
    public static func body(for item: OutboxItem, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: item.event.readableBytes + 160)
        buffer.writeString(#"{"data":"#)
        buffer.writeImmutableBuffer(item.event)
        buffer.writeString(#","id":"#)
        writeJSONString(item.id, to: &buffer)
        buffer.writeString(#","source":"#)
        writeJSONString(item.source, to: &buffer)
        buffer.writeString(#","timestamp":"#)
        writeJSONString(RFC3339.string(from: item.time), to: &buffer)
        buffer.writeString(#","type":"#)
        writeJSONString(item.kind.rawValue, to: &buffer)
        buffer.writeString("}")
        return buffer
    }

    /// Writes `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func writeJSONString(_ text: String, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.writeString("\\\"")
            case UInt8(ascii: "\\"): buffer.writeString("\\\\")
            case 0x00..<0x20: buffer.writeString(String(format: "\\u%04x", byte))
            default: buffer.writeInteger(byte)
            }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}
