import Foundation
import NIOCore
import PassTapCore
import SQLiteNIO

extension Outbox {
    /// Rows per `INSERT` (9 values each, well under SQLite's limit of bound values).
    static let rowsPerInsert = 100

    /// Stores `rows` in one transaction; when the outbox then holds more than `maxPendingBytes`,
    /// deletes the oldest events (for every sink) until it does not. Returns what was deleted.
    func append(_ rows: [OutboxRow], maxPendingBytes: Int) async throws(OutboxError) -> ForwardDropped? {
        try await database.run("store events") { session in
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(rows.count, start + Self.rowsPerInsert)]
                let values = Array(repeating: OutboxRow.placeholders, count: chunk.count).joined(separator: ", ")
                try await session.execute("INSERT INTO events \(OutboxRow.insertColumns) VALUES \(values)", chunk.flatMap(\.binds))
                start += chunk.count
            }
            return try await Self.dropOldest(session, maxPendingBytes: maxPendingBytes)
        }
    }

    /// Deletes the oldest events until the stored bytes are at most `maxPendingBytes`.
    static func dropOldest(_ session: OutboxSession, maxPendingBytes: Int) async throws -> ForwardDropped? {
        var total = try await session.integer("SELECT bytes FROM totals")
        guard total > maxPendingBytes else { return nil }
        var count = 0
        var first: String?
        var last: String?
        var through: Int64 = 0
        // Walk from the oldest in pages, until enough bytes would go.
        while total > maxPendingBytes {
            let rows = try await session.query(
                "SELECT rowid, instance, seq, bytes FROM events WHERE rowid > ? ORDER BY rowid LIMIT 500", [.integer(Int(through))])
            guard !rows.isEmpty else { break }
            for row in rows where total > maxPendingBytes {
                let id = "\(row.column("instance")?.string ?? ""):\(row.column("seq")?.integer ?? 0)"
                if first == nil { first = id }
                last = id
                count += 1
                total -= row.column("bytes")?.integer ?? 0
                through = Int64(row.column("rowid")?.integer ?? 0)
            }
        }
        guard count > 0, let first, let last else { return nil }
        try await session.execute("DELETE FROM dead WHERE rowid <= ?", [.integer(Int(through))])
        try await session.execute("DELETE FROM events WHERE rowid <= ?", [.integer(Int(through))])
        return ForwardDropped(reason: .outboxFull, sink: nil, count: count, firstID: first, lastID: last)
    }
}
