import Foundation
public import NIOCore
public import PassTapCore

/// One event in one view, encoded once: its JSON object (``params``), and the socket's `event`
/// line written around it (``line``). Everything that carries the event uses these bytes:
/// - the Unix socket writes ``line``;
/// - the WebSocket writes ``line`` as a text frame, without its newline (`WebSocketTextCodec`
///   ends every answer that way: the newline is NDJSON's framing, not JSON);
/// - the forwarding outbox stores ``params``, and the webhook body and PostgreSQL's `event`
///   column are written around or from those stored bytes (`ForwardEnvelope`, `PostgresJSONB`).
///
/// The params are encoded by the wire's encoder (``NDJSON/makeEncoder()``: compact, keys sorted,
/// slashes unescaped), then the fixed envelope is written around them:
///
/// ```json
/// {"jsonrpc":"2.0","method":"event","params":EVENT}
/// ```
///
/// which is the line `NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event))`
/// writes (`EncodedEventTests` holds the two equal for every kind of event). ``params`` is a view
/// of the line's own storage at the offset the params were written to: nothing is searched for,
/// cut out or encoded twice.
public struct EncodedEvent: EventLine {
    /// The `event` notification line, newline included: what subscribers write.
    public let line: ByteBuffer
    /// The event's own JSON object, the line's `params` (the same storage, not a copy).
    public let params: ByteBuffer

    /// How many bytes the line takes on the wire, newline included.
    public var byteCount: Int { line.readableBytes }

    /// Encodes `event` (already in the view wanted, ``Event/viewed(as:)``) once, and writes its
    /// line around it. Events always encode; should one not, the line still is well formed, with
    /// `null` params.
    public init(_ event: Event, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        let params: Data
        do {
            params = try NDJSON.makeEncoder().encode(event)
        } catch {
            params = Data("null".utf8)
        }
        var line = allocator.buffer(capacity: Self.lineStart.count + params.count + Self.lineEnd.count)
        line.writeBytes(Self.lineStart)
        let paramsIndex = line.writerIndex
        line.writeBytes(params)
        line.writeBytes(Self.lineEnd)
        self.line = line
        self.params = line.getSlice(at: paramsIndex, length: params.count) ?? ByteBuffer(bytes: params)
    }

    /// What an `event` line holds before its params: the notification's other members, in the
    /// wire's sorted key order (`jsonrpc`, `method`, then `params`).
    static let lineStart = Array(#"{"jsonrpc":"2.0","method":"event","params":"#.utf8)
    /// What it holds after them: the object's end and the line's newline.
    static let lineEnd = Array("}\n".utf8)
}
