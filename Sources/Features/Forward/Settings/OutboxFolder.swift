public import PassTapCore
import Foundation
package import Wallets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process can keep the forwarding outbox (`[forward] outbox`) where it is asked
/// to: the folder exists, is a folder, and this process's user may create files in it (SQLite
/// makes `-wal` and `-shm` beside the outbox); an outbox file already there must be readable and
/// writable. Judged with `access(2)`, so a read-only mount (the unit's `ProtectSystem=strict`
/// outside its `StateDirectory=`) is refused too.
///
/// `passtapd` refuses to start (and a reload that would open the outbox refuses the file) on a
/// ``Problem``; `--check-config` judges the same for the user it runs as, except that it accepts
/// a missing ``stateDirectory``, which systemd's `StateDirectory=` creates at the unit's start.
public enum OutboxFolder {
    /// The unit's `StateDirectory=passtap`: the default outbox's folder.
    public static let stateDirectory = "/var/lib/passtap"

    /// Why the outbox cannot be kept at a path.
    public enum Problem: Sendable, Hashable {
        /// The folder does not exist.
        case missing(folder: String)
        /// Something other than a folder is at the folder's path.
        case notAFolder(folder: String)
        /// This process may not create files in the folder (`errno` from `access(2)`).
        case folderNotWritable(folder: String, errno: Int32)
        /// The outbox file exists and this process may not read and write it.
        case fileNotWritable(path: String, errno: Int32)

        /// The folder the problem is about.
        public var folder: String {
            switch self {
            case .missing(let folder), .notAFolder(let folder), .folderNotWritable(let folder, _): return folder
            case .fileNotWritable(let path, _): return OutboxFolder.folder(of: path)
            }
        }

        /// One sentence: what is wrong, for `user` (``OutboxFolder/currentUser()``), and what to do.
        public func sentence(user: String) -> String {
            switch self {
            case .missing(let folder):
                return "the outbox's folder \(folder) does not exist: create it, owned by \(user) with mode 0700 (the unit's StateDirectory= makes \(OutboxFolder.stateDirectory)), or set [forward] outbox to a file in a folder \(user) can write (it takes effect at a restart, not a reload)"
            case .notAFolder(let folder):
                return "the outbox's folder \(folder) is not a folder: set [forward] outbox to a file in a folder \(user) can write (it takes effect at a restart, not a reload)"
            case .folderNotWritable(let folder, let code):
                return "\(user) cannot create files in the outbox's folder \(folder) (\(String(cString: strerror(code)))): give \(user) write access to it (chown, mode 0700), or set [forward] outbox to a file in a folder \(user) can write (it takes effect at a restart, not a reload); under the unit, only \(OutboxFolder.stateDirectory) is writable"
            case .fileNotWritable(let path, let code):
                return "\(user) cannot read and write the outbox \(path) (\(String(cString: strerror(code)))): chown it to \(user) with mode 0600, or move it aside (passtapd makes a new one)"
            }
        }
    }

    /// The folder of the outbox at `path` (`.` for a bare file name).
    public static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Why this process cannot keep the outbox at `path`, or `nil` when it can.
    public static func problem(forOutboxAt path: String) -> Problem? {
        let folder = folder(of: path)
        var info = stat()
        guard stat(folder, &info) == 0 else { return .missing(folder: folder) }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .notAFolder(folder: folder) }
        guard access(folder, W_OK | X_OK) == 0 else { return .folderNotWritable(folder: folder, errno: errno) }
        if lstat(path, &info) == 0, access(path, R_OK | W_OK) != 0 {
            return .fileNotWritable(path: path, errno: errno)
        }
        return nil
    }

    /// `passtapd (uid 998)`: the user this process runs as, for messages.
    public static func currentUser() -> String {
        MerchantKeyFilePolicy.user(UInt32(geteuid()))
    }
}
