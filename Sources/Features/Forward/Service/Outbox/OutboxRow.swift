import Foundation
import NIOCore
import PassTapCore
import PassTapProtocol
import SQLiteNIO

/// One event as the writer stores it: a row of `events`.
struct OutboxRow: Sendable {
    var instance: String
    var seq: UInt64
    var source: String
    var kind: EventKind
    var reader: String?
    /// Milliseconds since 1970 (UTC).
    var timeMilliseconds: Int64
    /// The event with pass messages withheld.
    var event: ByteBuffer
    /// The full event, only when some sink takes messages and it differs from `event`.
    var fullEvent: ByteBuffer?

    /// The bytes `max_pending_bytes` counts for it.
    var bytes: Int { event.readableBytes + (fullEvent?.readableBytes ?? 0) }

    var id: String { "\(instance):\(seq)" }

    /// `published`'s row: the event's JSON objects as the hub encoded them when it was published
    /// (``EncodedEvent/params``, the bytes its `event` lines were written around), not encoded
    /// again.
    init(_ published: PublishedEvent, instance: String, source: String, storesMessages: Bool) {
        let event = published.event
        self.instance = instance
        self.seq = event.seq
        self.source = source
        self.kind = event.kind
        self.reader = event.reader?.rawValue
        self.timeMilliseconds = Int64((event.time.timeIntervalSince1970 * 1000).rounded())
        self.event = published.eventJSON(for: .passesWithheld)
        if storesMessages {
            let full = published.eventJSON(for: .full)
            self.fullEvent = full == self.event ? nil : full
        } else {
            self.fullEvent = nil
        }
    }

    init(instance: String, seq: UInt64, source: String, kind: EventKind, reader: String?, timeMilliseconds: Int64, event: ByteBuffer, fullEvent: ByteBuffer?) {
        self.instance = instance
        self.seq = seq
        self.source = source
        self.kind = kind
        self.reader = reader
        self.timeMilliseconds = timeMilliseconds
        self.event = event
        self.fullEvent = fullEvent
    }

    /// Its values, in the order of ``OutboxRow/insertColumns``.
    var binds: [SQLiteData] {
        [
            .text(instance), .integer(Int(seq)), .text(source), .text(kind.rawValue), reader.map(SQLiteData.text) ?? .null,
            .integer(Int(timeMilliseconds)), .blob(event), fullEvent.map(SQLiteData.blob) ?? .null, .integer(bytes),
        ]
    }

    static let insertColumns = "(instance, seq, source, kind, reader, time, event, full_event, bytes)"
    static let placeholders = "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
}
