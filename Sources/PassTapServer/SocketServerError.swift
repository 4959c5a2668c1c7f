#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the ``SocketServer`` could not start (or stopped): each says what happened and what to do.
/// Equal by ``code``.
public struct SocketServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Sendable, Hashable {
        /// Another process (another passtapd) is listening on the socket path.
        case addressInUse = "address_in_use"
        /// Something that is not a socket is in the way at the socket path.
        case notASocket = "not_a_socket"
        /// `[socket] group` names a group this system does not have.
        case unknownGroup = "unknown_group"
        /// A filesystem call on the socket path or its directory failed.
        case filesystem = "filesystem"
        /// Binding the listening socket failed.
        case bindFailed = "bind_failed"
        /// The socket's directory, or a directory or link on the way, lets other users replace the socket.
        case insecureDirectory = "insecure_directory"
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for a person: what happened, where, and what to do.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { message }

    static func addressInUse(_ path: String) -> SocketServerError {
        SocketServerError(
            .addressInUse,
            "another process (is passtapd already running?) is listening on \(path): stop it, or set a different [socket] path")
    }

    static func notASocket(_ path: String) -> SocketServerError {
        SocketServerError(.notASocket, "\(path) exists and is not a socket: remove it, or set a different [socket] path")
    }

    static func unknownGroup(_ name: String) -> SocketServerError {
        SocketServerError(
            .unknownGroup,
            "[socket] group '\(name)' does not exist: create it (groupadd \(name)) or remove the setting")
    }

    /// `entry` (a directory or symbolic link on the way to `socket`) lets another user than root
    /// or `euid` change what is at the socket path; `mode` is its permission bits.
    static func insecureDirectory(
        _ entry: String, socket: String, mode: UInt32, problem: SocketFile.DirectoryProblem, euid: UInt32
    ) -> SocketServerError {
        let octal = String(mode, radix: 8)
        let us = "root or passtapd's user (\(userName(euid)))"
        let what: String
        var fix = ""
        switch problem {
        case .foreignOwner(let uid):
            what = "the directory \(entry) is owned by \(userName(uid)), not by \(us), so its owner can replace what is in it"
        case .foreignLink(let uid):
            what = "\(entry) is a symbolic link owned by \(userName(uid)), not by \(us), who can point it elsewhere"
        case .writableByOthers(sticky: false):
            what = "the directory \(entry) is writable by others and not sticky (mode \(octal)), so anyone can replace what is in it"
            fix = "run chmod o-w \(entry), or "
        case .writableByOthers(sticky: true):
            what = "the directory \(entry) is writable by others and, though sticky (mode \(octal)), not owned by root, so anyone can put files in it"
            fix = "run chmod o-w \(entry), or "
        case .writableByGroup(let gid):
            what = "the directory \(entry) is writable by its group \(groupName(gid)) (mode \(octal)), whose members can replace what is in it"
            fix = "run chmod g-w \(entry), or "
        }
        return SocketServerError(
            .insecureDirectory,
            "refusing to listen on \(socket): \(what); \(fix)set [socket] path in a directory only root or passtapd's user can change (such as /run/passtap)")
    }

    /// Something appeared at `path` between the check for a stale socket and the moment the new
    /// one was put in place.
    static func appearedDuringStart(_ path: String) -> SocketServerError {
        SocketServerError(
            .addressInUse,
            "another process put a file at \(path) while passtapd started (a second passtapd starting at the same moment?): stop it, or set a different [socket] path")
    }

    /// "uid N (name)", or "uid N" for a uid without a name.
    private static func userName(_ uid: UInt32) -> String {
        guard let entry = getpwuid(uid_t(uid)) else { return "uid \(uid)" }
        return "uid \(uid) (\(String(cString: entry.pointee.pw_name)))"
    }

    /// "gid N (name)", or "gid N" for a gid without a name.
    private static func groupName(_ gid: UInt32) -> String {
        guard let entry = getgrgid(gid_t(gid)) else { return "gid \(gid)" }
        return "gid \(gid) (\(String(cString: entry.pointee.gr_name)))"
    }

    /// The `[socket]` key whose value this error is about: `group` for an unknown group, `path`
    /// for the others (the socket file, its directories, the address).
    public var configKey: String { code == .unknownGroup ? "group" : "path" }

    /// `entry`, on the way to `socket`, is neither a directory nor a link.
    static func notADirectory(_ entry: String, socket: String) -> SocketServerError {
        SocketServerError(
            .filesystem,
            "refusing to listen on \(socket): \(entry) is not a directory; set [socket] path in a directory (such as /run/passtap)")
    }

    static func filesystem(_ operation: String, _ path: String, errno code: Int32) -> SocketServerError {
        SocketServerError(.filesystem, "\(operation) \(path) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    static func bindFailed(_ path: String, _ underlying: any Error) -> SocketServerError {
        SocketServerError(.bindFailed, "cannot listen on \(path): \(underlying)")
    }
}
