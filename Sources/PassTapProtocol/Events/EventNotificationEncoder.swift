public import NIOCore
public import PassTapCore

/// The wire's ``EventLineEncoder``: an event as its JSON-RPC `event` notification line,
/// `{"jsonrpc":"2.0","method":"event","params":EVENT}` and a newline, made as an
/// ``EncodedEvent`` (the params encoded once, the line written around them).
///
/// The daemon hands one to its ``EventHub``, which encodes each event with it once per view when
/// the event is published; the server then writes ``PublishedEvent/notificationLine(for:)`` and
/// the forwarding outbox stores ``PublishedEvent/eventJSON(for:)``, both from those bytes.
public struct EventNotificationEncoder: EventLineEncoder {
    public init() {}

    public func line(for event: Event) -> any EventLine {
        EncodedEvent(event)
    }

    /// The `event` line of `event`, as a buffer to write.
    public static func encode(_ event: Event) -> ByteBuffer {
        EncodedEvent(event).line
    }
}

extension PublishedEvent {
    /// The event encoded in `view`: the one the hub's encoder made at publish time (encoded here
    /// only for a hub that was given another encoder, a programming error).
    public func encoded(for view: EventView) -> EncodedEvent {
        if let encoded = line(for: view) as? EncodedEvent { return encoded }
        return EncodedEvent(event.viewed(as: view))
    }

    /// The `event` line subscribers with `view` write.
    public func notificationLine(for view: EventView) -> ByteBuffer {
        encoded(for: view).line
    }

    /// The event's own JSON object in `view`, the params of its `event` line (the same bytes,
    /// not a second encoding): what the forwarder stores and sends.
    public func eventJSON(for view: EventView) -> ByteBuffer {
        encoded(for: view).params
    }
}
