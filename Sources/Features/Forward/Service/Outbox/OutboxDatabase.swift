import ForwardSettings
import Foundation
import Logging
import NIOCore
import NIOPosix
import PassTapCore
import SQLiteNIO
import Synchronization

/// The outbox's SQLite connection, the one thread it runs on, and the order of operations: one
/// at a time, each a whole transaction, in the order they were called, through a ``SerialGate``
/// (sqlite-nio runs each statement as a separate job, so two callers would otherwise mix their
/// statements).
final class OutboxDatabase: Sendable {
    /// The file.
    let path: String
    private let connection: SQLiteConnection
    private let threadPool: NIOThreadPool
    /// Lets one operation at a time in, in the order they were called.
    private let gate = SerialGate()
    private let closed = Atomic<Bool>(false)

    private init(path: String, connection: SQLiteConnection, threadPool: NIOThreadPool) {
        self.path = path
        self.connection = connection
        self.threadPool = threadPool
    }

    /// Opens (or makes) the file at `path` on a thread of its own, in write-ahead-log mode with
    /// `synchronous` per `sync`, and makes or checks the schema.
    static func open(path: String, sync: Configuration.ForwardSync, logger: Logger) async throws(OutboxError) -> OutboxDatabase {
        try OutboxFile.prepare(path: path)
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threadPool, logger: logger, on: eventLoop)
        } catch {
            try? await threadPool.shutdownGracefully()
            throw OutboxFile.openError(path: path, error)
        }
        let database = OutboxDatabase(path: path, connection: connection, threadPool: threadPool)
        do {
            try await database.configure(sync: sync)
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Sets the journal and `synchronous`, then makes or checks the schema.
    private func configure(sync: Configuration.ForwardSync) async throws(OutboxError) {
        try await run("open", transaction: false) { session in
            // WAL needs no fsync per commit for kill -9; `synchronous = FULL` adds one for power loss.
            let mode = try await session.query("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.string
            guard mode?.lowercased() == "wal" else {
                throw OutboxFailure("SQLite refused the write-ahead log (journal_mode is \(mode ?? "unknown")); put the outbox on a local file system")
            }
            try await session.execute("PRAGMA synchronous = \(sync == .full ? "FULL" : "NORMAL")")
        }
        try await run("make the schema", transaction: true) { session in
            try await OutboxSchema.prepare(session)
        }
    }

    /// Runs `body` after every operation called before it, alone, in a transaction when
    /// `transaction` (rolled back when it throws). Errors become ``OutboxError/storage(_:)``
    /// naming the path and `what`.
    func run<T: Sendable>(
        _ what: String, transaction: Bool = true, _ body: @escaping @Sendable (OutboxSession) async throws -> T
    ) async throws(OutboxError) -> T {
        try await gate.run { () async throws(OutboxError) -> T in
            guard !closed.load(ordering: .acquiring) else {
                throw OutboxError.storage("the outbox \(path) is closed (passtapd is stopping)")
            }
            let session = OutboxSession(connection: connection)
            do {
                if transaction { try await session.execute("BEGIN IMMEDIATE") }
                let result = try await body(session)
                if transaction { try await session.execute("COMMIT") }
                return result
            } catch {
                if transaction { try? await session.execute("ROLLBACK") }
                if let error = error as? OutboxError { throw error }
                throw OutboxFile.operationError(path: path, what: what, error)
            }
        }
    }

    /// An outbox dropped without ``close()`` (an error path) still closes its file and ends its
    /// thread, on that thread (sqlite-nio's connection must be closed before it goes).
    deinit {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let threadPool = self.threadPool
        connection.close().whenComplete { _ in threadPool.shutdownGracefully { _ in } }
    }

    /// Closes the connection and ends the thread, after the operations already called.
    func close() async {
        await gate.run {
            guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            try? await connection.close()
            try? await threadPool.shutdownGracefully()
        }
    }
}

/// An error of the outbox's own, with its message (becomes ``OutboxError/storage(_:)`` with the path).
struct OutboxFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
