import WebSettings
import Logging
import PassTapProtocol

/// Who a connection belongs to: a process on the Unix socket, known by the kernel's credentials,
/// or a `/rpc` client, known by the web token it authenticated with and the Origin its browser
/// sent. Roles, audit lines and the per-owner limits (`vas_reads_per_uid`,
/// `vas_reads_per_token`) all go by it.
package enum ClientPeer: Sendable, Hashable {
    /// A Unix-socket peer.
    case unix(PeerCredentials)
    /// A `/rpc` peer after `auth`: the token's `name` (never its secret) and the `Origin` header,
    /// `nil` when none was sent.
    case web(token: String, origin: String?)

    /// What the per-owner limits count by: the user, or the token.
    package enum Owner: Sendable, Hashable, CustomStringConvertible {
        case uid(UInt32)
        case token(String)

        package var description: String {
            switch self {
            case .uid(let uid): return "user \(uid)"
            case .token(let name): return "token \(name)"
            }
        }
    }

    /// The user or token this peer counts against.
    package var owner: Owner {
        switch self {
        case .unix(let credentials): return .uid(credentials.uid)
        case .web(let token, _): return .token(token)
        }
    }

    /// The log metadata naming it: `peer.uid` and `peer.pid`, or `peer.token` and `peer.origin`.
    package var logMetadata: Logger.Metadata {
        switch self {
        case .unix(let credentials):
            return ["peer.uid": "\(credentials.uid)", "peer.pid": "\(credentials.pid)"]
        case .web(let token, let origin):
            return ["peer.token": "\(token)", "peer.origin": "\(origin ?? "none")"]
        }
    }
}
