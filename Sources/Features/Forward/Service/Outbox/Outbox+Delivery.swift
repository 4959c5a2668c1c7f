import Foundation
public import PassTapCore
import Logging
import NIOCore
import SQLiteNIO

extension Outbox {
    public func nextBatch(for sink: String, kinds: Set<EventKind>, limit: Int, includeMessage: Bool) async throws(OutboxError) -> [OutboxItem] {
        guard limit > 0 else { return [] }
        let logger = self.logger
        return try await database.run("read a batch for sink \(sink)") { session in
            let (cursor, _, _, _) = try await Self.sinkRow(session, sink)
            // Which stored JSON the sink gets: the full one only with include_message, when stored.
            let columns = "e.rowid AS rowid, e.instance, e.seq, e.source, e.kind, e.reader, e.time, CASE WHEN ? AND e.full_event IS NOT NULL THEN e.full_event ELSE e.event END AS body"
            let view = SQLiteData.integer(includeMessage ? 1 : 0)
            var rows = try await session.query(
                "SELECT \(columns) FROM dead d JOIN events e ON e.rowid = d.rowid WHERE d.sink = ? AND d.requeued = 1 ORDER BY d.rowid LIMIT ?",
                [view, .text(sink), .integer(limit)])
            if rows.count < limit, !kinds.isEmpty {
                let names = kinds.map { SQLiteData.text($0.rawValue) }
                rows += try await session.query(
                    "SELECT \(columns) FROM events e WHERE e.rowid > ? AND e.kind IN (\(Self.placeholders(names.count))) ORDER BY e.rowid LIMIT ?",
                    [view, .integer(Int(cursor))] + names + [.integer(limit - rows.count)])
            }
            return rows.compactMap { row in
                guard let item = Self.item(row) else {
                    logger.warning("forward: an outbox row this passtapd cannot read was skipped", metadata: ["rowid": "\(row.column("rowid")?.integer ?? 0)"])
                    return nil
                }
                return item
            }
        }
    }

    public func markDelivered(sink: String, rowIDs: [Int64]) async throws(OutboxError) {
        guard !rowIDs.isEmpty else { return }
        try await database.run("record a delivery for sink \(sink)") { session in
            let (cursor, _, _, _) = try await Self.sinkRow(session, sink)
            // Requeued dead events leave the dead list; the others move the cursor.
            let freed = try await session.query(
                "DELETE FROM dead WHERE sink = ? AND rowid IN (\(Self.placeholders(rowIDs.count))) RETURNING rowid",
                [.text(sink)] + rowIDs.map { .integer(Int($0)) }
            ).compactMap { $0.column("rowid")?.integer.map(Int64.init) }
            let newCursor = max(cursor, rowIDs.max() ?? cursor)
            if newCursor > cursor {
                try await session.execute("UPDATE sinks SET cursor = ? WHERE name = ?", [.integer(Int(newCursor)), .text(sink)])
            }
            try await Self.collectGarbage(session, after: cursor, through: newCursor, rowIDs: freed)
        }
    }

    public func markDead(sink: String, rowID: Int64, error: String) async throws(OutboxError) {
        try await database.run("move an event to the dead list of sink \(sink)") { session in
            let (cursor, _, _, _) = try await Self.sinkRow(session, sink)
            try await session.execute(
                """
                INSERT INTO dead (sink, rowid, error, requeued) SELECT ?, rowid, ?, 0 FROM events WHERE rowid = ?
                ON CONFLICT (sink, rowid) DO UPDATE SET error = excluded.error, requeued = 0
                """,
                [.text(sink), .text(error), .integer(Int(rowID))])
            if rowID > cursor {
                try await session.execute("UPDATE sinks SET cursor = ? WHERE name = ?", [.integer(Int(rowID)), .text(sink)])
                try await Self.collectGarbage(session, after: cursor, through: rowID)
            }
        }
    }

    public func requeueDead(sink: String) async throws(OutboxError) -> Int {
        try await database.run("requeue the dead events of sink \(sink)") { session in
            _ = try await Self.sinkRow(session, sink)
            return try await session.query("UPDATE dead SET requeued = 1 WHERE sink = ? AND requeued = 0 RETURNING rowid", [.text(sink)]).count
        }
    }

    /// The item of a row of ``nextBatch(for:kinds:limit:includeMessage:)``'s query; `nil` for a
    /// kind this passtapd does not know.
    static func item(_ row: SQLiteRow) -> OutboxItem? {
        guard let rowID = row.column("rowid")?.integer, let kind = row.column("kind")?.string.flatMap(EventKind.init(rawValue:)),
            let seq = row.column("seq")?.integer, seq >= 0, let time = row.column("time")?.integer
        else { return nil }
        let body: ByteBuffer
        if let blob = row.column("body")?.blob {
            body = blob
        } else if let text = row.column("body")?.string {
            body = ByteBuffer(string: text)
        } else {
            return nil
        }
        return OutboxItem(
            rowID: Int64(rowID), instance: row.column("instance")?.string ?? "", seq: UInt64(seq), source: row.column("source")?.string ?? "",
            kind: kind, reader: row.column("reader")?.string, time: date(milliseconds: time), event: body)
    }
}
