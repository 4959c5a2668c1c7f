public import NIOCore
public import PassTapCore

/// The wire's ``EventLineEncoder``: an event as its JSON-RPC `event` notification line,
/// `{"jsonrpc":"2.0","method":"event","params":EVENT}` and a newline, encoded as every other line
/// of the socket is (``NDJSON/encodeLine(_:allocator:)``: compact, keys sorted).
///
/// The daemon hands one to its ``EventHub``, which encodes each event with it once per view when
/// the event is published; the server then writes ``PublishedEvent/notificationLine(for:)``.
public struct EventNotificationEncoder: EventLineEncoder {
    public init() {}

    public func line(for event: Event) -> any EventLine {
        EventNotificationLine(buffer: Self.encode(event))
    }

    /// The `event` line of `event`, as a buffer to write.
    public static func encode(_ event: Event) -> ByteBuffer {
        do {
            return try NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event))
        } catch {
            // Events always encode; should one not, subscribers still get a well-formed line.
            return ByteBuffer(string: #"{"jsonrpc":"2.0","method":"event","params":null}"# + "\n")
        }
    }
}

/// An `event` notification line as ``EventNotificationEncoder`` made it: the bytes every
/// subscriber of one view writes (a `ByteBuffer` shares its storage when copied).
public struct EventNotificationLine: EventLine {
    /// The line, newline included.
    public let buffer: ByteBuffer

    public var byteCount: Int { buffer.readableBytes }
}

extension PublishedEvent {
    /// The `event` line subscribers with `view` write: the one the hub's encoder made at publish
    /// time (encoded here only for a hub that was given another encoder, a programming error).
    public func notificationLine(for view: EventView) -> ByteBuffer {
        if let line = line(for: view) as? EventNotificationLine { return line.buffer }
        return EventNotificationEncoder.encode(event.viewed(as: view))
    }
}

extension EventNotificationEncoder {
    /// What every `event` line starts with, up to its `params` (keys are sorted, so `params` comes
    /// last and the line ends with `}` and the newline).
    static let paramsPrefix = Array(#"{"jsonrpc":"2.0","method":"event","params":"#.utf8)
}

extension PublishedEvent {
    /// The event's own JSON object in `view`: the `params` of its `event` line, as a slice of that
    /// line (no copy, no second encoding). The forwarder stores and sends these bytes.
    public func eventJSON(for view: EventView) -> ByteBuffer {
        let line = notificationLine(for: view)
        let prefix = EventNotificationEncoder.paramsPrefix
        let suffixLength = 2  // `}` and the newline
        if line.readableBytes > prefix.count + suffixLength, line.readableBytesView.starts(with: prefix),
            let slice = line.getSlice(at: line.readerIndex + prefix.count, length: line.readableBytes - prefix.count - suffixLength)
        {
            return slice
        }
        // A line not made by EventNotificationEncoder (a programming error): encode the event alone.
        var encoded = (try? NDJSON.encodeLine(event.viewed(as: view))) ?? ByteBuffer(string: "null\n")
        encoded.moveWriterIndex(to: encoded.writerIndex - 1)
        return encoded
    }
}
