public import ForwardSettings
public import Foundation
public import PassTapCore
import SQLiteNIO

extension Outbox {
    public func setSinks(_ active: [Configuration.ForwardSinkSettings], now: Date) async throws(OutboxError) {
        try await database.run("set its sinks") { session in
            // A new sink starts after the newest row ever stored (AUTOINCREMENT's counter).
            let newest = try await Self.newestRowID(session)
            for (position, sink) in active.enumerated() {
                try await session.execute(
                    """
                    INSERT INTO sinks (name, type, kinds, cursor, removed_at, until_row, position) VALUES (?, ?, ?, ?, NULL, NULL, ?)
                    ON CONFLICT (name) DO UPDATE SET type = excluded.type, kinds = excluded.kinds, removed_at = NULL, until_row = NULL,
                        position = excluded.position
                    """,
                    [.text(sink.name), .text(sink.type.rawValue), .text(OutboxSchema.kindsText(sink.kinds.map(\.rawValue))), .integer(Int(newest)), .integer(position)])
            }
            let names = active.map { SQLiteData.text($0.name) }
            let notActive = names.isEmpty ? "" : " AND name NOT IN (\(Self.placeholders(names.count)))"
            // A removed sink keeps what it owed at its removal, and nothing published after it.
            try await session.execute(
                "UPDATE sinks SET removed_at = ?, until_row = ? WHERE removed_at IS NULL" + notActive,
                [.integer(Self.milliseconds(now)), .integer(Int(newest))] + names)
        }
    }

    public func status() async throws(OutboxError) -> OutboxStatus {
        try await database.run("read its status") { session in
            let rows = try await session.query(
                "SELECT name, type, kinds, cursor, removed_at, until_row FROM sinks ORDER BY removed_at IS NOT NULL, position, removed_at, name")
            var sinks: [OutboxStatus.Sink] = []
            for row in rows {
                let name = row.column("name")?.string ?? ""
                let kinds = row.column("kinds")?.string ?? ","
                let cursor = row.column("cursor")?.integer ?? 0
                let until = row.column("until_row")?.integer ?? Int.max
                let after = try await session.query(
                    "SELECT COUNT(*) AS count, MIN(time) AS oldest FROM events WHERE rowid > ? AND rowid <= ? AND instr(?, ',' || kind || ',') > 0",
                    [.integer(cursor), .integer(until), .text(kinds)]
                ).first
                let requeued = try await session.query(
                    "SELECT COUNT(*) AS count, MIN(e.time) AS oldest FROM dead d JOIN events e ON e.rowid = d.rowid WHERE d.sink = ? AND d.requeued = 1",
                    [.text(name)]
                ).first
                let dead = try await session.integer("SELECT COUNT(*) FROM dead WHERE sink = ? AND requeued = 0", [.text(name)])
                let oldest = [after?.column("oldest")?.integer, requeued?.column("oldest")?.integer].compactMap { $0 }.min()
                sinks.append(
                    OutboxStatus.Sink(
                        name: name,
                        type: Configuration.ForwardSinkSettings.SinkType(rawValue: row.column("type")?.string ?? "") ?? .webhook,
                        removedAt: row.column("removed_at")?.integer.map(Self.date(milliseconds:)),
                        pending: (after?.column("count")?.integer ?? 0) + (requeued?.column("count")?.integer ?? 0),
                        oldestPending: oldest.map(Self.date(milliseconds:)),
                        dead: dead))
            }
            let bytes = try await session.integer("SELECT bytes FROM totals")
            return OutboxStatus(sinks: sinks, pendingBytes: bytes)
        }
    }

    // MARK: Shared by the operations

    /// The largest row id ever given (0 for a new file): deleted rows' ids included.
    static func newestRowID(_ session: OutboxSession) async throws -> Int64 {
        Int64(try await session.integer("SELECT seq FROM sqlite_sequence WHERE name = 'events'"))
    }

    /// `sink`'s cursor and kinds (as stored), whether it was removed, and the last row it owes
    /// (`Int64.max` while it is configured), or ``OutboxError/unknownSink(_:)``.
    static func sinkRow(_ session: OutboxSession, _ sink: String) async throws -> (cursor: Int64, kinds: String, removed: Bool, until: Int64) {
        guard let row = try await session.query("SELECT cursor, kinds, removed_at, until_row FROM sinks WHERE name = ?", [.text(sink)]).first else {
            throw OutboxError.unknownSink(sink)
        }
        return (
            Int64(row.column("cursor")?.integer ?? 0), row.column("kinds")?.string ?? ",", row.column("removed_at")?.integer != nil,
            row.column("until_row")?.integer.map(Int64.init) ?? .max
        )
    }

    /// Deletes the rows among those in (`after`, `through`] and `rowIDs` that no sink still
    /// needs: past every cursor (or of a kind the sink does not take) and on no dead list.
    static func collectGarbage(_ session: OutboxSession, after: Int64, through: Int64, rowIDs: [Int64] = []) async throws {
        let unneeded = """
            NOT EXISTS (SELECT 1 FROM sinks s WHERE events.rowid > s.cursor AND (s.until_row IS NULL OR events.rowid <= s.until_row)
                AND instr(s.kinds, ',' || events.kind || ',') > 0)
            AND NOT EXISTS (SELECT 1 FROM dead d WHERE d.rowid = events.rowid)
            """
        if through > after {
            try await session.execute("DELETE FROM events WHERE rowid > ? AND rowid <= ? AND " + unneeded, [.integer(Int(after)), .integer(Int(through))])
        }
        if !rowIDs.isEmpty {
            try await session.execute(
                "DELETE FROM events WHERE rowid IN (\(placeholders(rowIDs.count))) AND " + unneeded, rowIDs.map { .integer(Int($0)) })
        }
    }

    /// `?, ?, ...` for `count` values.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// `date` as the outbox stores times: milliseconds since 1970.
    static func milliseconds(_ date: Date) -> Int {
        Int((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(milliseconds: Int) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
