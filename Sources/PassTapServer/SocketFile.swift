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
struct SocketFile {
    /// The path of the socket file.
    let path: String

    /// Creates the parent directory (0755) if missing and clears a stale socket file.
    /// - Throws: ``SocketServerError`` if a live socket or a non-socket is in the way.
    func prepare() throws(SocketServerError) {
        try createParentDirectory()
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

    private func createParentDirectory() throws(SocketServerError) {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw SocketServerError(.filesystem, "cannot create the socket directory \(directory): \(error)")
        }
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
