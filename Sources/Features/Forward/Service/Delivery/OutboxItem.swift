public import Foundation
public import NIOCore
public import PassTapCore

/// One pending event as a sink receives it: its stable id, where and when it happened, and the
/// event's JSON object in the sink's view (decrypted pass messages only for a sink with
/// `include_message = true`).
public struct OutboxItem: Sendable, Hashable {
    /// Its place in the outbox: every sink delivers in this order.
    public var rowID: Int64
    /// The daemon instance that published it (`status`'s `instance`).
    public var instance: String
    /// Its `seq` in that instance (it starts again at 1 with each instance).
    public var seq: UInt64
    /// This till's `[forward] source` (the host name by default).
    public var source: String
    /// Its kind.
    public var kind: EventKind
    /// The reader it is about, if any.
    public var reader: String?
    /// When the hub published it.
    public var time: Date
    /// The event's JSON object, as subscribers receive it in the sink's view (the `params` of its
    /// `event` line, never encoded again).
    public var event: ByteBuffer

    /// The stable id every sink delivers it under: `instance:seq` (the webhook's `webhook-id`,
    /// the table's primary key).
    public var id: String { "\(instance):\(seq)" }

    public init(rowID: Int64, instance: String, seq: UInt64, source: String, kind: EventKind, reader: String?, time: Date, event: ByteBuffer) {
        self.rowID = rowID
        self.instance = instance
        self.seq = seq
        self.source = source
        self.kind = kind
        self.reader = reader
        self.time = time
        self.event = event
    }
}
