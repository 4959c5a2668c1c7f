public import Foundation
public import PassTapCore
import SQLiteNIO

extension Outbox {
    public func dropBacklog(sink: String) async throws(OutboxError) -> ForwardDropped? {
        try await database.run("drop the backlog of sink \(sink)") { session in
            try await Self.drop(session, sink: sink, reason: .requested)
        }
    }

    public func expireRemovedSinks(removedBefore cutoff: Date) async throws(OutboxError) -> [ForwardDropped] {
        try await database.run("drop the backlogs of removed sinks") { session in
            let names = try await session.query(
                "SELECT name FROM sinks WHERE removed_at IS NOT NULL AND removed_at < ? ORDER BY removed_at, name", [.integer(Self.milliseconds(cutoff))]
            ).compactMap { $0.column("name")?.string }
            var dropped: [ForwardDropped] = []
            for name in names {
                if let one = try await Self.drop(session, sink: name, reason: .sinkRemoved) { dropped.append(one) }
            }
            return dropped
        }
    }

    /// Drops everything `sink` has still to deliver (dead events included): a removed sink is
    /// forgotten, a configured one's cursor moves to the newest row. Returns what went.
    static func drop(_ session: OutboxSession, sink: String, reason: ForwardDropped.Reason) async throws -> ForwardDropped? {
        let (cursor, kinds, removed, until) = try await sinkRow(session, sink)
        let backlog = "rowid IN (SELECT rowid FROM dead WHERE sink = ?) OR (rowid > ? AND rowid <= ? AND instr(?, ',' || kind || ',') > 0)"
        let binds: [SQLiteData] = [.text(sink), .integer(Int(cursor)), .integer(Int(until)), .text(kinds)]
        let count = try await session.integer("SELECT COUNT(*) FROM events WHERE " + backlog, binds)
        var dropped: ForwardDropped?
        if count > 0 {
            let first = try await session.query("SELECT instance, seq FROM events WHERE \(backlog) ORDER BY rowid LIMIT 1", binds).first
            let last = try await session.query("SELECT instance, seq FROM events WHERE \(backlog) ORDER BY rowid DESC LIMIT 1", binds).first
            dropped = ForwardDropped(reason: reason, sink: sink, count: count, firstID: id(first), lastID: id(last))
        }
        let deadRows = try await session.query("DELETE FROM dead WHERE sink = ? RETURNING rowid", [.text(sink)]).compactMap {
            $0.column("rowid")?.integer.map(Int64.init)
        }
        let newest = try await newestRowID(session)
        if removed {
            try await session.execute("DELETE FROM sinks WHERE name = ?", [.text(sink)])
        } else {
            try await session.execute("UPDATE sinks SET cursor = ? WHERE name = ?", [.integer(Int(newest)), .text(sink)])
        }
        try await collectGarbage(session, after: cursor, through: newest, rowIDs: deadRows)
        return dropped
    }

    /// `instance:seq` of a row.
    private static func id(_ row: SQLiteRow?) -> String {
        "\(row?.column("instance")?.string ?? ""):\(row?.column("seq")?.integer ?? 0)"
    }
}
