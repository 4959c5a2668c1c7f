import NIOCore
import NIOPosix
import NIOSSL
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

    /// A transport error from NIO (connecting, reading, writing) in one sentence naming `target`
    /// (`host:port`, or a socket's path; `nil` when the caller names it), with its class
    /// (``transportReason(of:)``): `connection refused by 127.0.0.1:9: nothing listens there`.
    static func transport(_ error: any Error, target: String?) -> ForwardFailure {
        let reason = transportReason(of: error)
        let by = target.map { " by \($0)" } ?? ""
        let named = target ?? "the server"
        switch reason {
        case .connectionRefused:
            return ForwardFailure(reason, "connection refused\(by): nothing listens there")
        case .timeout:
            return ForwardFailure(reason, "\(named) did not answer in time")
        case .connectionClosed:
            return ForwardFailure(reason, "\(named) closed the connection without answering")
        case .unreachable:
            if let error = error as? NIOConnectionError, error.connectionErrors.isEmpty {
                return ForwardFailure(reason, "the host name of \(named) does not resolve (check the name and the DNS resolver)")
            }
            if errnoCode(of: error) == ENOENT {
                return ForwardFailure(reason, "\(named) cannot be reached: no socket file is there")
            }
            return ForwardFailure(reason, "\(named) cannot be reached: no route to its network or host")
        default:
            return ForwardFailure(reason, "cannot reach \(named): \(error)")
        }
    }

    /// A TLS failure in one sentence naming `target` (`nil`: the caller names it): BoringSSL's
    /// reason names (`CERTIFICATE_VERIFY_FAILED`) without its source paths, with what to do for
    /// an untrusted certificate; NIOSSL's own description otherwise (a host name mismatch).
    static func tls(_ error: any Error, target: String?) -> ForwardFailure {
        let with = target.map { " with \($0)" } ?? ""
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return ForwardFailure(.tls, "TLS\(with) failed: the server's certificate does not name the host")
        }
        let description = String(describing: error)
        let reasons = description.split(separator: "OPENSSL_internal:").dropFirst().map { $0.prefix { $0.isUppercase || $0.isNumber || $0 == "_" } }
        guard !reasons.isEmpty else { return ForwardFailure(.tls, "TLS\(with) failed: \(description)") }
        let hint =
            reasons.contains("CERTIFICATE_VERIFY_FAILED")
            ? ": the server's certificate is not signed by a CA in the system's store or ca_file" : ""
        return ForwardFailure(.tls, "TLS handshake\(with) failed (" + reasons.joined(separator: ", ") + ")" + hint)
    }

    /// Whether `error` comes from TLS (NIOSSL or BoringSSL).
    static func isTLS(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }

    /// The `errno` under a transport error, when there is one.
    private static func errnoCode(of error: any Error) -> Int32? {
        switch error {
        case let error as IOError: return error.errnoCode
        case let error as NIOConnectionError: return error.connectionErrors.lazy.compactMap { errnoCode(of: $0.error) }.first
        default: return nil
        }
    }

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
