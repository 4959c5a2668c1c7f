import ArgumentParser
import Foundation
import NIOCore
import PassTapProtocol

/// What can go wrong in `passtap`, each with its sysexits code and a message that says what to do.
enum CLIError: Error, CustomStringConvertible {
    /// The socket could not be reached.
    case connect(path: String, underlying: any Error)
    /// The daemon did not answer in time.
    case timeout(seconds: Double)
    /// The daemon closed the connection before answering.
    case closed
    /// The daemon answered with a JSON-RPC error.
    case rpc(code: Int, message: String, reason: String?)
    /// The daemon's answer could not be understood (version mismatch?).
    case badAnswer(String)
    /// A reader argument matched no reader, or several.
    case reader(String)
    /// The socket is served by a user that is not passtapd's: nothing was sent to it.
    /// `credentials` is `nil` when the kernel could not say who serves it.
    case untrustedServer(path: String, credentials: PeerCredentials?, expected: String, detail: String?)
    /// `--daemon-user` (or `PASSTAP_DAEMON_USER`) names no user.
    case unknownDaemonUser(String)

    /// Whether the daemon could not be reached or stopped answering (no socket, refused, closed,
    /// timed out); a refusal for lack of permission is not this.
    var isUnreachable: Bool {
        switch self {
        case .connect(_, let underlying): return Self.errno(of: underlying) != EACCES
        case .timeout, .closed: return true
        default: return false
        }
    }

    /// sysexits(3): 64 usage, 69 unavailable, 75 temporary failure, 76 protocol, 77 permission.
    var exitCode: ExitCode {
        switch self {
        case .connect(_, let underlying):
            return Self.errno(of: underlying) == EACCES ? ExitCode(77) : ExitCode(69)
        case .timeout: return ExitCode(75)
        case .closed: return ExitCode(69)
        case .rpc(let code, _, _):
            switch code {
            case -32602: return ExitCode(64)
            case -32021: return ExitCode(64)  // unknown_sink: no sink has the name given
            case -32010: return ExitCode(75)  // timeout: nothing happened in time
            default: return ExitCode(69)
            }
        case .badAnswer: return ExitCode(76)
        case .reader: return ExitCode(64)
        case .untrustedServer: return ExitCode(77)
        case .unknownDaemonUser: return ExitCode(64)
        }
    }

    var description: String {
        switch self {
        case .connect(let path, let underlying):
            switch Self.errno(of: underlying) {
            case EACCES:
                return "permission denied on \(path): join the socket's group (see [socket] group in passtapd.toml) or run as root"
            case ENOENT:
                return "passtapd is not running: no socket at \(path) (start it: systemctl start passtapd; other path: --socket or PASSTAP_SOCKET)"
            case ECONNREFUSED:
                return "passtapd is not running: \(path) refuses connections (stale socket file)"
            default:
                return "cannot connect to \(path): \(underlying)"
            }
        case .timeout(let seconds):
            return "passtapd did not answer within \(seconds) s (raise --timeout, or check `journalctl -u passtapd`)"
        case .closed:
            return "passtapd closed the connection"
        case .rpc(let code, let message, let reason):
            return "passtapd: \(message) (\(reason ?? "error") \(code))"
        case .badAnswer(let detail):
            return "unexpected answer from passtapd: \(detail)"
        case .reader(let detail):
            return detail
        case .untrustedServer(let path, let credentials, let expected, let detail):
            guard let credentials else {
                return "refusing to talk to \(path): cannot tell which user serves it (\(detail ?? "no peer credentials")), so nothing was sent"
            }
            return """
                refusing to talk to \(path): it is served by uid \(credentials.uid) (pid \(credentials.pid)), not by passtapd's \
                user (expected \(expected)), so nothing was sent; another program may have taken the socket path: stop it and \
                restart passtapd, or, if passtapd really runs as uid \(credentials.uid), pass --daemon-user \(credentials.uid) \
                (or set PASSTAP_DAEMON_USER)
                """
        case .unknownDaemonUser(let name):
            return "--daemon-user (or PASSTAP_DAEMON_USER) '\(name)' is neither a user of this system nor a uid"
        }
    }

    private static func errno(of error: any Error) -> Int32? {
        (error as? IOError)?.errnoCode
    }
}
