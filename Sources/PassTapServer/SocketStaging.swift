import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory of the daemon's own, mode 0700, beside the socket file (same directory, so
/// same file system), where the socket is bound and given its group and mode before anyone else
/// can reach it; ``publish(mode:group:)`` then links it in under its real name.
///
/// Why: `chown` and `chmod` on the socket's path follow a symbolic link, and another user who
/// could rename one over the name between `bind` and `chmod` would have given any file the
/// socket's group and mode (docs/socket-api.md, "Socket file"). On Linux, `fchmod` on a socket's fd does not change the
/// file on disk. So every step after `bind` goes through file descriptors of this directory and
/// of the socket's directory, opened once: renaming either directory, or a link above them,
/// cannot redirect a step to another file.
///
/// - `bind` and `chown` use `/proc/self/fd/N/s`, a path through this process's descriptor of the
///   directory (the unit's system-call filter lets in `chown` alone, not `fchownat`); nobody
///   else can create `s` in a 0700 directory of ours.
/// - `linkat` puts the socket in place and fails with `EEXIST` when anything is at the name,
///   so of two passtapd starting at once only one wins (the stale-socket probe has run before).
///   A hard link rather than `renameat2(RENAME_NOREPLACE)`: Swift's Glibc module leaves
///   `renameat2` out, and `linkat` gives the same "never replace" on every local file system.
struct SocketStaging {
    /// The socket's name inside the staging directory.
    static let socketName = "s"
    /// The staging directory's name starts with this (a leftover after a crash is safe to remove).
    static let prefix = ".passtapd-"

    private let file: SocketFile
    private let parent: Int32
    private let staging: Int32
    private let name: String

    /// Makes the staging directory in the socket file's directory.
    init(for file: SocketFile) throws(SocketServerError) {
        let parent = open(file.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { throw .filesystem("open", file.directory, errno: errno) }
        var made: String?
        for _ in 0..<16 {
            let candidate = Self.prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            if mkdirat(parent, candidate, 0o700) == 0 {
                made = candidate
                break
            }
            guard errno == EEXIST else {
                let code = errno
                close(parent)
                throw .filesystem("mkdir (a staging directory for the socket) in", file.directory, errno: code)
            }
        }
        guard let made else {
            close(parent)
            throw .filesystem("mkdir (a staging directory for the socket) in", file.directory, errno: EEXIST)
        }
        let staging = openat(parent, made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        let euid = geteuid()
        // Another user who swapped the directory between mkdirat and openat gave us theirs.
        guard staging >= 0, fstat(staging, &info) == 0, info.st_uid == euid, fchmod(staging, 0o700) == 0 else {
            let code = errno
            let owner = info.st_uid
            if staging >= 0 { close(staging) }
            close(parent)
            if staging >= 0, owner != euid {
                throw .insecureDirectory(
                    file.directory + "/" + made, socket: file.path, mode: UInt32(info.st_mode) & 0o7777,
                    problem: .foreignOwner(uid: UInt32(owner)), euid: UInt32(euid))
            }
            throw .filesystem("open (the staging directory)", file.directory + "/" + made, errno: code)
        }
        self.file = file
        self.parent = parent
        self.staging = staging
        self.name = made
    }

    /// The path to bind: through this process's descriptor of the staging directory.
    var bindPath: String { "/proc/self/fd/\(staging)/\(Self.socketName)" }

    /// A listening stream socket bound in the staging directory, for NIO to adopt
    /// (`ServerBootstrap.bind(_:childChannelInitializer:)`); the caller owns it until then.
    ///
    /// Bound here, not by NIO's `bind(unixDomainSocketPath:)`: a listener NIO binds by path
    /// unlinks that path when it closes, and `/proc/self/fd/N/s` then names whatever directory
    /// descriptor N is by that time, such as another listener's staging directory with its socket
    /// just bound. Seen in the tests, where servers start and stop side by side: a socket gone
    /// between `bind` and `chown`. A socket NIO adopts is never unlinked by NIO.
    func bindListener(backlog: Int32 = 128) throws(SocketServerError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .filesystem("socket", file.path, errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(bindPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw .filesystem("bind", file.path, errno: code)
        }
        return fd
    }

    /// Gives the bound socket `group` (if any) and `mode`, then links it in at the socket path.
    /// - Returns: the socket file's inode, for ``SocketFile/remove(inode:)``.
    func publish(mode: UInt16, group: String?) throws(SocketServerError) -> ino_t {
        if let group {
            let gid = try SocketFile.groupID(named: group)
            guard chown(bindPath, uid_t.max, gid) == 0 else { throw .filesystem("chown to group '\(group)'", file.path, errno: errno) }
        }
        guard fchmodat(staging, Self.socketName, mode_t(mode), 0) == 0 else { throw .filesystem("chmod", file.path, errno: errno) }
        var info = stat()
        guard fstatat(staging, Self.socketName, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .filesystem("stat", file.path, errno: errno)
        }
        guard linkat(staging, Self.socketName, parent, file.name, 0) == 0 else {
            if errno == EEXIST { throw .appearedDuringStart(file.path) }
            throw .filesystem("link (the socket, into place)", file.path, errno: errno)
        }
        return info.st_ino
    }

    /// Removes the staging directory and what is in it; after ``publish(mode:group:)`` the socket
    /// stays at its real name.
    func remove() {
        unlinkat(staging, Self.socketName, 0)
        unlinkat(parent, name, AT_REMOVEDIR)
        close(staging)
        close(parent)
    }
}
