#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the ``SocketServer`` could not start (or stopped): each says what happened and what to do.
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
        /// The socket's directory, or one above it, lets other users replace the socket.
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

    /// `owner` is the uid of a sticky directory that is not ours (`nil`: it is not sticky).
    static func insecureDirectory(_ directory: String, socket: String, mode: UInt32, owner: UInt32?) -> SocketServerError {
        let octal = String(mode, radix: 8)
        let what =
            owner.map { "is writable by others and, though sticky (mode \(octal)), owned by uid \($0), who can replace anything in it" }
            ?? "is writable by others and not sticky (mode \(octal)), so anyone can replace what is in it"
        return SocketServerError(
            .insecureDirectory,
            "refusing to listen on \(socket): the directory \(directory) \(what); run chmod o-w \(directory), or set [socket] path in a directory only root or passtapd's user can write (such as /run/passtap)")
    }

    static func filesystem(_ operation: String, _ path: String, errno code: Int32) -> SocketServerError {
        SocketServerError(.filesystem, "\(operation) \(path) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    static func bindFailed(_ path: String, _ underlying: any Error) -> SocketServerError {
        SocketServerError(.bindFailed, "cannot listen on \(path): \(underlying)")
    }
}
