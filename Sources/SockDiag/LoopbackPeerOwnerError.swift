#if canImport(Glibc)
import Glibc
#endif

/// Why ``LoopbackPeerOwner`` could not tell a connection's owner. Equal by ``code``.
public struct LoopbackPeerOwnerError: Error, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Hashable, Sendable {
        /// The netlink socket could not be opened (the system or the sandbox refuses `AF_NETLINK`).
        case socketUnavailable = "socket_unavailable"
        /// The kernel answered nothing within the query (not seen; the owner is then unknown).
        case noAnswer = "no_answer"
        /// The kernel has no such socket: the peer closed before it was asked.
        case peerGone = "peer_gone"
        /// The query itself failed: see ``errorNumber``.
        case queryFailed = "query_failed"
        /// The answer was not the netlink messages asked for.
        case malformedAnswer = "malformed_answer"
        /// The addresses are not both IPv4 or both IPv6 literals.
        case notTCP = "not_tcp"
    }

    public let code: Code
    /// The C error, when there is one.
    public let errorNumber: Int32?

    /// The error `code`, with the C error `errno` when there is one.
    public init(_ code: Code, errno: Int32? = nil) {
        self.code = code
        errorNumber = errno
    }

    public var description: String {
        let cause = errorNumber.map { ": \(String(cString: strerror($0)))" } ?? ""
        switch code {
        case .socketUnavailable: return "cannot open a NETLINK_SOCK_DIAG socket\(cause) (a unit must allow AF_NETLINK)"
        case .noAnswer: return "the kernel did not answer the inet_diag query at once"
        case .peerGone: return "the peer's socket is gone"
        case .queryFailed: return "the inet_diag query failed\(cause)"
        case .malformedAnswer: return "the kernel's inet_diag answer was not understood"
        case .notTCP: return "the connection's addresses are not both IPv4 or both IPv6 literals"
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
