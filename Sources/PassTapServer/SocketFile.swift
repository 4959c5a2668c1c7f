import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket file's life on disk: its directory, a stale file from a crashed run, permissions,
/// and removal at shutdown.
///
/// A file at the path is probed with `connect()`: refused (`ECONNREFUSED`) means nobody listens
/// and it is replaced; accepted means another process serves it and it is never taken over.
///
/// The file is never looser than `[socket] mode`, not even between `bind()` and `chmod()`:
/// `passtapd` sets its umask to ``SocketServerConfiguration/fileCreationMask`` at start, so the
/// kernel creates the file with the configured owner bits only; ``applyPermissions(mode:group:)``
/// then sets the group and, last, the mode. Nor can another user swap the file or its directory:
/// ``prepare()`` refuses a socket whose directory, or any directory above it, others can write,
/// unless it is sticky and owned by root or this process's user (as `/tmp` is).
struct SocketFile {
    /// The path of the socket file.
    let path: String

    /// Creates the parent directory (0755) if missing, checks that no other user can replace
    /// what is in it, and clears a stale socket file.
    /// - Throws: ``SocketServerError`` if a live socket or a non-socket is in the way, or a
    ///   directory on the way is writable by others.
    func prepare() throws(SocketServerError) {
        try createParentDirectory()
        try checkDirectories()
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .filesystem("lstat", path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        switch probe() {
        case .listening:
            throw .addressInUse(path)
        case .stale:
            guard unlink(path) == 0 || errno == ENOENT else { throw .filesystem("unlink stale socket", path, errno: errno) }
        case .failed(let code):
            throw .filesystem("connect (to check whether another passtapd listens on)", path, errno: code)
        }
    }

    /// Sets the socket file's mode and, if given, its group; returns its inode for ``remove(inode:)``.
    func applyPermissions(mode: UInt16, group: String?) throws(SocketServerError) -> ino_t {
        if let group {
            let gid = try Self.groupID(named: group)
            guard chown(path, uid_t.max, gid) == 0 else { throw .filesystem("chown to group '\(group)'", path, errno: errno) }
        }
        guard chmod(path, mode_t(mode)) == 0 else { throw .filesystem("chmod", path, errno: errno) }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .filesystem("stat", path, errno: errno) }
        return info.st_ino
    }

    /// The inode now at the path, or `nil` if there is nothing.
    func inode() -> ino_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_ino : nil
    }

    /// Removes the socket file if it is still the one this server created (same inode), so a
    /// file another process put there since is left alone.
    func remove(inode: ino_t?) {
        guard let inode, self.inode() == inode else { return }
        unlink(path)
    }

    private enum Probe {
        case listening
        case stale
        case failed(Int32)
    }

    private func probe() -> Probe {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failed(errno) }
        defer { close(fd) }
        let result: Int32
        do {
            let address = try SocketAddress(unixDomainSocketPath: path)
            result = address.withSockAddr { pointer, length in connect(fd, pointer, socklen_t(length)) }
        } catch {
            return .failed(ENAMETOOLONG)
        }
        if result == 0 { return .listening }
        switch errno {
        case ECONNREFUSED: return .stale
        case EAGAIN, EINPROGRESS: return .listening  // a full backlog is still a listener
        case let code: return .failed(code)
        }
    }

    /// The directory the socket file is in.
    var directory: String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Creates each missing directory above the socket with mode 0755 (set with `chmod`, so the
    /// daemon's restrictive umask does not lock clients out of the path).
    private func createParentDirectory() throws(SocketServerError) {
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
            guard mkdir(created, 0o755) == 0 || errno == EEXIST else {
                throw .filesystem("mkdir (the socket directory)", created, errno: errno)
            }
            guard chmod(created, 0o755) == 0 else { throw .filesystem("chmod 0755", created, errno: errno) }
        }
    }

    /// Refuses the socket's directory if it, or a directory above it, can be written by others
    /// (who could then remove or rename the socket, or the directory holding it, and put their
    /// own in its place), unless that directory is sticky and owned by root or this process's
    /// user: in a sticky directory only the owner of an entry (or of the directory) may remove it.
    ///
    /// Symbolic links on the way are resolved first, so the directories checked are the real ones.
    private func checkDirectories() throws(SocketServerError) {
        guard let resolved = realpath(directory, nil) else { throw .filesystem("realpath", directory, errno: errno) }
        let real = String(cString: resolved)
        free(resolved)
        var current = real
        while true {
            var info = stat()
            guard lstat(current, &info) == 0 else { throw .filesystem("lstat", current, errno: errno) }
            try Self.checkDirectory(
                DirectoryStatus(mode: UInt32(info.st_mode), uid: UInt32(info.st_uid)), at: current, socket: path,
                euid: UInt32(geteuid()))
            guard current != "/" else { return }
            let parent = (current as NSString).deletingLastPathComponent
            current = parent.isEmpty ? "/" : parent
        }
    }

    /// The parts of a directory's `stat` that ``checkDirectory(_:at:socket:euid:)`` judges.
    struct DirectoryStatus {
        /// `st_mode`: file type and permission bits.
        var mode: UInt32
        /// `st_uid`: the owner.
        var uid: UInt32
    }

    /// The decision for one directory on the socket's path (see ``checkDirectories()``): refused
    /// when others may write it, unless it is sticky and owned by root or `euid`.
    static func checkDirectory(_ info: DirectoryStatus, at directory: String, socket: String, euid: UInt32) throws(SocketServerError) {
        guard info.mode & UInt32(S_IWOTH) != 0 else { return }
        let sticky = info.mode & UInt32(S_ISVTX) != 0
        if sticky, info.uid == 0 || info.uid == euid { return }
        throw .insecureDirectory(directory, socket: socket, mode: info.mode & 0o7777, owner: sticky ? info.uid : nil)
    }

    private static func groupID(named name: String) throws(SocketServerError) -> gid_t {
        var group = group()
        var result: UnsafeMutablePointer<group>? = nil
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard status == 0 else { throw .filesystem("getgrnam_r for group '\(name)' at", "/etc/group", errno: status) }
        guard result != nil else { throw .unknownGroup(name) }
        return group.gr_gid
    }
}
