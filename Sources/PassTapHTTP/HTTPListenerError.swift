public import PassTapCore
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// An ``HTTPListener`` could not bind its address. Equal by ``code``.
public struct HTTPListenerError: Error, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Hashable, Sendable {
        /// Binding the address failed (in use, not allowed, no such address...): see ``underlying``.
        case bindFailed = "bind_failed"
        /// The socket was bound but has no local address to report.
        case noLocalAddress = "no_local_address"
        /// systemd passed sockets that do not suit the configuration (``ListenerSockets/refused(_:)``).
        case socketRefused = "socket_refused"
    }

    /// What failed.
    public var code: Code
    /// The listener's name, which is also its configuration table (`metrics`, `web`).
    public var listener: String
    /// The address it was to listen on (`[metrics] listen`, `[web] listen`).
    public var address: ListenAddress
    /// What the bind threw.
    public var underlying: any Error

    /// The error for the listener `listener` on `address`.
    public init(code: Code, listener: String, address: ListenAddress, underlying: any Error) {
        self.code = code
        self.listener = listener
        self.address = address
        self.underlying = underlying
    }

    public var description: String {
        let prefix = "cannot listen for \(listener) on \(address) ([\(listener)] listen): "
        guard let errno = (underlying as? IOError)?.errnoCode else { return prefix + "\(underlying)" }
        let text = prefix + String(cString: strerror(errno)) + " (errno \(errno))"
        switch errno {
        case EAFNOSUPPORT:
            // What systemd's RestrictAddressFamilies= answers: the shipped unit allows no TCP.
            return text + "; under systemd, install the drop-in tcp-listeners.conf and restart passtapd (docs/operations.md, \"The TCP listeners' drop-in\")"
        case EADDRINUSE:
            return text + ": another process holds the port (ss -ltnp 'sport = :\(address.port)' names it)"
        default:
            return text
        }
    }

    /// Whether the bind failed because the system has no such address or family (a companion
    /// `[::1]` with IPv6 turned off), which leaves the companion out rather than the listener down.
    var isAddressMissing: Bool {
        guard code == .bindFailed, let errno = (underlying as? IOError)?.errnoCode else { return false }
        return errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Why passed sockets were refused: the sentence ``ListenerSockets/adopting(_:name:address:anyLoopbackOfPort:)`` wrote.
struct PassedSocketRefused: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
