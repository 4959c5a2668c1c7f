import NIOCore
import SQLiteNIO

/// The statements of one outbox operation, on the outbox's thread (see ``OutboxDatabase/run(_:transaction:_:)``).
struct OutboxSession: Sendable {
    let connection: SQLiteConnection

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await connection.query(sql, binds)
    }

    /// Runs one statement, ignoring any rows.
    func execute(_ sql: String, _ binds: [SQLiteData] = []) async throws {
        _ = try await connection.query(sql, binds)
    }

    /// The first column of the first row, as an integer (0 when there is none or it is NULL).
    func integer(_ sql: String, _ binds: [SQLiteData] = []) async throws -> Int {
        try await query(sql, binds).first?.columns.first?.data.integer ?? 0
    }
}
