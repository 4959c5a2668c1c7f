import NIOCore
import NIOPosix
public import PassTapProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Why one delivery failed: the text (`forward.status`'s `last_error` for a `manage` peer, and
/// the log) and its class (`last_error_reason`, for every `observe` peer). The text never holds
/// a secret or event data; it may name a database host, a role, and what a server said, which
/// is why only `manage` sees it.
public struct ForwardFailure: Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was.
    public var reason: ForwardFailureReason
    /// What failed, for the operator.
    public var text: String

    /// A failure of kind `reason`, said by `text`.
    public init(_ reason: ForwardFailureReason, _ text: String) {
        self.reason = reason
        self.text = text
    }

    public var description: String { text }

    /// The class of a transport error from NIO (connecting, reading, writing): refused,
    /// unreachable, timed out, closed, or ``ForwardFailureReason/other``. TLS errors are told
    /// apart by the sinks, which know their TLS library's types.
    static func transportReason(of error: any Error) -> ForwardFailureReason {
        switch error {
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .connectionRefused
            case ETIMEDOUT: return .timeout
            case ECONNRESET, EPIPE: return .connectionClosed
            case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, ENOENT: return .unreachable
            default: return .other
            }
        case let error as NIOConnectionError:
            // One refused attempt is enough: something answers at that address but does not listen.
            let reasons = error.connectionErrors.map { transportReason(of: $0.error) }
            if reasons.contains(.connectionRefused) { return .connectionRefused }
            if let first = reasons.first { return first }
            return .unreachable  // no address to try: the name did not resolve
        case is SocketAddressError:
            return .unreachable
        case let error as ChannelError:
            if case .connectTimeout = error { return .timeout }
            return error == .eof || error == .ioOnClosedChannel ? .connectionClosed : .other
        default:
            return .other
        }
    }
}
