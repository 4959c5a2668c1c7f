import ForwardSettings
import Foundation
import PassTapCore
import SQLiteNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The outbox file on disk: made with mode 0600 before SQLite opens it (SQLite gives its `-wal`
/// and `-shm` files the same mode), and the errors that name it and say what to do.
enum OutboxFile {
    /// Checks the folder (``OutboxFolder``, as `passtapd` did at start) and makes the file (empty,
    /// 0600) if it is missing.
    static func prepare(path: String) throws(OutboxError) {
        let folder = OutboxFolder.folder(of: path)
        if let problem = OutboxFolder.problem(forOutboxAt: path) {
            throw OutboxError.storage("cannot open the outbox \(path): \(problem.sentence(user: OutboxFolder.currentUser()))")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        if code == EEXIST { return }
        throw OutboxError.storage(
            "cannot create the outbox \(path): \(String(cString: strerror(code))); give \(OutboxFolder.currentUser()) write access to \(folder), or set [forward] outbox to a writable place and restart passtapd"
        )
    }

    /// The error for a file SQLite could not open.
    static func openError(path: String, _ error: any Error) -> OutboxError {
        .storage("cannot open the outbox \(path): \(message(error)); check that \(OutboxFolder.currentUser()) can read and write it (mode 0600), or move it aside (passtapd makes a new one) and restart passtapd")
    }

    /// The error for an operation that failed on an open outbox.
    static func operationError(path: String, what: String, _ error: any Error) -> OutboxError {
        if let sqlite = error as? SQLiteError, sqlite.reason == .notADatabase {
            return .storage("the outbox \(path) is not an SQLite database (\(what)); move it aside, passtapd makes a new one")
        }
        if let sqlite = error as? SQLiteError, sqlite.reason == .full {
            return .storage("the outbox \(path) could not \(what): the disk is full; free space or lower [forward] max_pending_bytes")
        }
        return .storage("the outbox \(path) could not \(what): \(message(error)); check the file, its folder and the disk")
    }

    private static func message(_ error: any Error) -> String {
        if let sqlite = error as? SQLiteError { return sqlite.message }
        return String(describing: error)
    }
}
