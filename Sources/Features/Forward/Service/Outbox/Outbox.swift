public import ForwardSettings
import Foundation
public import Logging
public import PassTapCore
import NIOCore
import NIOPosix
import SQLiteNIO

/// The durable outbox: one SQLite file (write-ahead log) of the events waiting for the sinks,
/// each sink's cursor and its dead list. `docs/architecture.md`, "The outbox" documents the schema.
///
/// Every statement runs on one `NIOThreadPool` thread the outbox owns (never on Swift's
/// cooperative pool or an event loop), and one operation (a transaction) at a time, in call order.
/// Events go in through its ``OutboxWriter``; the forwarder uses the ``OutboxStorage`` side.
public final class Outbox: OutboxStorage {
    /// The file's path, as opened.
    public let path: String
    let logger: Logger
    /// The connection, its thread and the one-at-a-time order of operations.
    let database: OutboxDatabase

    private init(path: String, database: OutboxDatabase, logger: Logger) {
        self.path = path
        self.database = database
        self.logger = logger
    }

    /// Opens the outbox at `path`, making the file (mode 0600) and its tables if they are missing.
    ///
    /// Throws ``OutboxError/storage(_:)`` naming the path and what to do when the folder is
    /// missing, the file cannot be opened, is not an outbox, or was made by a newer passtapd.
    public static func open(path: String, sync: Configuration.ForwardSync, logger: Logger) async throws(OutboxError) -> Outbox {
        let database = try await OutboxDatabase.open(path: path, sync: sync, logger: logger)
        return Outbox(path: path, database: database, logger: logger)
    }

    /// Closes the file and ends the outbox's thread. Calls after this throw ``OutboxError/storage(_:)``.
    public func close() async {
        await database.close()
    }
}
