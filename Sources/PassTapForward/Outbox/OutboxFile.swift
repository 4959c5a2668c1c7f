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
    /// Checks the folder and makes the file (empty, 0600) if it is missing.
    static func prepare(path: String) throws(OutboxError) {
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw OutboxError.storage(
                "cannot open the outbox \(path): the folder \(folder) does not exist; create it (mode 0700, owned by passtapd's user; the unit's StateDirectory makes /var/lib/passtap) or set [forward] outbox to a file in an existing folder"
            )
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        if code == EEXIST { return }
        throw OutboxError.storage(
            "cannot create the outbox \(path): \(String(cString: strerror(code))); give passtapd's user write access to \(folder) or set [forward] outbox to a writable place"
        )
    }

    /// The error for a file SQLite could not open.
    static func openError(path: String, _ error: any Error) -> OutboxError {
        .storage("cannot open the outbox \(path): \(message(error)); check that passtapd's user can read and write it (mode 0600) or set [forward] outbox")
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
