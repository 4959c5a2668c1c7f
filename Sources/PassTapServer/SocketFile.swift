import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket file's life on disk: its directory, a stale file from a crashed run, and removal at
/// shutdown. Binding and permissions happen in a ``SocketStaging`` directory.
///
/// A file at the path is probed with `connect()`: refused (`ECONNREFUSED`) means nobody listens
/// and it is replaced; accepted means another process serves it and it is never taken over.
///
/// Who can touch the file: ``prepare()`` refuses a socket whose directory, or any directory or
/// symbolic link on the way to it, a user other than root or this process's could change (see
/// ``problem(with:euid:)``), so nobody else can remove, rename or replace the file once it is
/// there. Before it is there, it is bound and given its group and mode in a private directory,
/// and only then linked in under its name (``SocketStaging``): a link another user renames over
/// the name meanwhile cannot redirect the `chown` or `chmod`. The file is never looser than
/// `[socket] mode`: `passtapd`'s umask (`Configuration.Socket.fileCreationMask`) keeps
/// only the owner bits until the mode is set.
struct SocketFile {
    /// The path of the socket file.
    let path: String
    /// Whether ``prepare()`` judges the directories on the way (off only in tests).
    var checksDirectories = true

    /// Creates the parent directory (0755) if missing, checks that no other user can change it
    /// or a directory above it, and clears a stale socket file.
    /// - Throws: ``SocketServerError`` if the path is too long for a socket, a live socket or a
    ///   non-socket is in the way, or a directory on the way is not safe.
    func prepare() throws(SocketServerError) {
        do {
            _ = try SocketAddress(unixDomainSocketPath: path)
        } catch {
            throw .bindFailed(path, error)
        }
        // Judged before anything is made in them, and again once the socket's directory exists.
        if checksDirectories { _ = try checkDirectories(allowingMissing: true) }
        try createParentDirectory()
        if checksDirectories { _ = try checkDirectories(allowingMissing: false) }
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

    /// The socket file's name in ``directory``.
    var name: String { (path as NSString).lastPathComponent }

    /// The id of group `name`.
    static func groupID(named name: String) throws(SocketServerError) -> gid_t {
        var group = group()
        var result: UnsafeMutablePointer<group>? = nil
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard status == 0 else { throw .filesystem("getgrnam_r for group '\(name)' at", "/etc/group", errno: status) }
        guard result != nil else { throw .unknownGroup(name) }
        return group.gr_gid
    }
}
