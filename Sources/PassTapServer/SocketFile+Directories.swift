import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directories on the way to the socket: made when missing, and judged (see
/// ``problem(with:euid:)``) so that only root and the daemon's user can change what is in them.
extension SocketFile {
    /// The parts of an `lstat` that ``problem(with:euid:)`` judges.
    struct DirectoryStatus {
        /// `st_mode`: file type and permission bits.
        var mode: UInt32
        /// `st_uid`: the owner.
        var uid: UInt32
        /// `st_gid`: the group, named when its members could write.
        var gid: UInt32

        init(mode: UInt32, uid: UInt32, gid: UInt32) {
            self.mode = mode
            self.uid = uid
            self.gid = gid
        }

        init(_ info: stat) {
            self.init(mode: UInt32(info.st_mode), uid: UInt32(info.st_uid), gid: UInt32(info.st_gid))
        }
    }

    /// Why a directory (or symbolic link) on the socket's path lets another user change what is
    /// at the path: remove or rename the socket, or put a link of their own in its place.
    enum DirectoryProblem: Equatable, Sendable {
        /// Owned by neither root nor the daemon's user: the owner may do anything in it.
        case foreignOwner(uid: UInt32)
        /// A symbolic link owned by neither root nor the daemon's user: in a sticky directory
        /// such as `/tmp`, its owner may replace it with one pointing elsewhere.
        case foreignLink(uid: UInt32)
        /// Others may write it; `sticky`: it is sticky but not owned by root.
        case writableByOthers(sticky: Bool)
        /// Members of group `gid` may write it.
        case writableByGroup(gid: UInt32)
    }

    /// The rule for one directory or symbolic link on the socket's path, for a daemon whose
    /// effective uid is `euid`: `nil` when only root and `euid` can change it.
    ///
    /// - A sticky directory owned by root (`/tmp`, mode 1777) is accepted: there only an entry's
    ///   owner (or root) may remove or rename it.
    /// - Otherwise the owner must be root or `euid`, and neither group nor others may write. A
    ///   sticky directory of the daemon's own user that others may write is refused too: anyone
    ///   could create names in it (the socket's, to stop a start).
    /// - A symbolic link is judged by its owner alone (its permission bits mean nothing).
    static func problem(with info: DirectoryStatus, euid: UInt32) -> DirectoryProblem? {
        let trusted = info.uid == 0 || info.uid == euid
        if info.mode & UInt32(S_IFMT) == UInt32(S_IFLNK) { return trusted ? nil : .foreignLink(uid: info.uid) }
        let sticky = info.mode & UInt32(S_ISVTX) != 0
        if sticky, info.uid == 0 { return nil }
        guard trusted else { return .foreignOwner(uid: info.uid) }
        if info.mode & UInt32(S_IWOTH) != 0 { return .writableByOthers(sticky: sticky) }
        if info.mode & UInt32(S_IWGRP) != 0 { return .writableByGroup(gid: info.gid) }
        return nil
    }

    /// Throws ``SocketServerError/Code/insecureDirectory`` naming `entry` when
    /// ``problem(with:euid:)`` finds one.
    func check(_ info: DirectoryStatus, at entry: String, euid: UInt32) throws(SocketServerError) {
        guard let problem = Self.problem(with: info, euid: euid) else { return }
        throw .insecureDirectory(entry, socket: path, mode: info.mode & 0o7777, problem: problem, euid: euid)
    }

    /// How many symbolic links the walk follows before it gives up (Linux's own limit).
    static let maximumLinks = 40

    /// Walks to the socket's directory from `/` one name at a time, as the kernel does, and
    /// judges every directory a name is looked up in and every symbolic link followed (a link's
    /// target is walked in turn), so the directories judged are the ones the socket path really
    /// goes through.
    /// - Parameters:
    ///   - allowingMissing: stop without an error where a directory does not exist yet (the
    ///     nearest existing one has been judged): what `--check-config` does before the daemon
    ///     has made it.
    ///   - euid: the user the daemon runs as.
    /// - Returns: the real path of the socket's directory; `nil` when it does not exist yet.
    func checkDirectories(allowingMissing: Bool, euid: UInt32 = UInt32(geteuid())) throws(SocketServerError) -> String? {
        var start = directory
        if !start.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else { throw .filesystem("getcwd for", directory, errno: errno) }
            start = String(cString: cwd) + "/" + start
            free(cwd)
        }
        var pending = Array(Self.components(of: start).reversed())
        var current = "/"
        try check(try Self.status(of: current), at: current, euid: euid)
        var links = 0
        while let name = pending.popLast() {
            if name == "." { continue }
            if name == ".." {
                // Already judged: every directory above `current` was walked through to reach it.
                current = (current as NSString).deletingLastPathComponent
                continue
            }
            let next = current == "/" ? "/" + name : current + "/" + name
            var info = stat()
            guard lstat(next, &info) == 0 else {
                if errno == ENOENT, allowingMissing { return nil }
                throw .filesystem("lstat", next, errno: errno)
            }
            try check(DirectoryStatus(info), at: next, euid: euid)
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                links += 1
                guard links <= Self.maximumLinks else { throw .filesystem("follow the symbolic links of", directory, errno: ELOOP) }
                let target = try Self.target(ofLink: next)
                if target.hasPrefix("/") { current = "/" }
                pending.append(contentsOf: Self.components(of: target).reversed())
            case S_IFDIR:
                current = next
            default:
                throw .notADirectory(next, socket: path)
            }
        }
        return current
    }

    /// Creates each missing directory above the socket with mode 0755 (set with `fchmod`, so the
    /// daemon's restrictive umask does not lock clients out of the path). A directory that
    /// appears meanwhile is left as it is (and judged by ``checkDirectories(allowingMissing:euid:)``);
    /// only one this process made and opened without following a link gets the mode.
    func createParentDirectory() throws(SocketServerError) {
        var missing: [String] = []
        var current = directory
        var info = stat()
        while stat(current, &info) != 0 {
            guard errno == ENOENT else { throw .filesystem("stat", current, errno: errno) }
            missing.append(current)
            let parent = (current as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != current else { break }
            current = parent
        }
        for created in missing.reversed() {
            guard mkdir(created, 0o700) == 0 else {
                if errno == EEXIST { continue }
                throw .filesystem("mkdir (the socket directory)", created, errno: errno)
            }
            let fd = open(created, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw .filesystem("open (the socket directory it made)", created, errno: errno) }
            defer { close(fd) }
            guard fstat(fd, &info) == 0 else { throw .filesystem("fstat", created, errno: errno) }
            let euid = UInt32(geteuid())
            guard info.st_uid == euid else {
                // Replaced between mkdir and open: never change another user's directory.
                throw .insecureDirectory(created, socket: path, mode: UInt32(info.st_mode) & 0o7777, problem: .foreignOwner(uid: UInt32(info.st_uid)), euid: euid)
            }
            guard fchmod(fd, 0o755) == 0 else { throw .filesystem("chmod 0755", created, errno: errno) }
        }
    }

    private static func components(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    private static func status(of path: String) throws(SocketServerError) -> DirectoryStatus {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .filesystem("lstat", path, errno: errno) }
        return DirectoryStatus(info)
    }

    private static func target(ofLink link: String) throws(SocketServerError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length >= 0 else { throw .filesystem("readlink", link, errno: errno) }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
