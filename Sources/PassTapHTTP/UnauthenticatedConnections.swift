public import Logging
public import NIOCore
import SockDiag
import Synchronization

/// The connections of a listener that have not authenticated yet: page requests, and `/rpc`
/// WebSockets before their handshake completes (docs/web.md, "Limits against other local
/// processes").
///
/// They have a pool of their own, ``limit`` in all, apart from the authenticated connections, so
/// they can never take an authenticated client's place. Each user may hold at most
/// `perUserLimit` of them: a local process that floods the port, opening a new connection for
/// each one closed (`scripts/rig/tcp_flood.py`), holds only its own few, and another user's
/// client still finds room. Evicting the oldest would not do: such a flood evicts the client
/// before it finishes its handshake. The user is the owner of the peer's socket, which the
/// kernel reports (``LoopbackPeerOwner``), as `SO_PEERCRED` does on the Unix socket, whose
/// `[socket] max_clients_per_uid` this matches. Connections whose owner cannot be told share
/// one more such share.
///
/// A connection is counted in by the ``UnauthenticatedConnectionGate`` when it is accepted, and
/// out when it closes or authenticates (``authenticated(_:)``).
public final class UnauthenticatedConnections: Sendable {
    /// Whom a connection is counted under.
    public enum Owner: Hashable, Sendable, CustomStringConvertible {
        /// The user owning the peer's socket.
        case uid(UInt32)
        /// The owner could not be told (logged once); these share one user's share.
        case unknown

        public var description: String {
            switch self {
            case .uid(let uid): return "\(uid)"
            case .unknown: return "unknown"
            }
        }
    }

    /// The most unauthenticated connections held at once, whoever owns them.
    public let limit: Int
    /// The listener's name (its configuration table, in the log lines).
    private let listener: String
    private let perUserLimit: @Sendable () -> Int
    private let owners = LoopbackPeerOwner()
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var byOwner: [Owner: Int] = [:]
        var byChannel: [ObjectIdentifier: Owner] = [:]
        /// Refusals since the last line about them, and when that was.
        var refused = 0
        var lastRefusalLog: ContinuousClock.Instant?
        /// Whether a failure to tell an owner was logged (once per process).
        var lookupFailureLogged = false
    }

    /// At most `limit` unauthenticated connections of listener `listener` (`web`), and
    /// `perUserLimit()` (read at each connection: a reload may change it) per user.
    public init(listener: String, limit: Int, perUserLimit: @escaping @Sendable () -> Int, logger: Logger) {
        self.listener = listener
        self.limit = limit
        self.perUserLimit = perUserLimit
        self.logger = logger
    }

    /// How many are held now.
    public var count: Int { state.withLock { $0.byChannel.count } }

    /// How many `owner` holds now.
    public func count(of owner: Owner) -> Int { state.withLock { $0.byOwner[owner, default: 0] } }

    /// Counts `channel`, just accepted, in under its peer's owner, until it closes or
    /// authenticates; `false` (nothing counted) when the pool or that owner's share is full.
    func admit(_ channel: any Channel) -> Bool {
        let owner = owner(of: channel)
        let id = ObjectIdentifier(channel)
        let perUser = perUserLimit()
        let (admitted, logRefusals) = state.withLock { state -> (Bool, (refused: Int, held: Int)?) in
            if state.byChannel.count < limit, state.byOwner[owner, default: 0] < perUser {
                state.byChannel[id] = owner
                state.byOwner[owner, default: 0] += 1
                return (true, nil)
            }
            state.refused += 1
            let now = ContinuousClock.now
            guard state.lastRefusalLog.map({ now - $0 >= .seconds(60) }) ?? true else { return (false, nil) }
            defer { state.refused = 0 }
            state.lastRefusalLog = now
            return (false, (state.refused, state.byChannel.count))
        }
        if admitted {
            channel.closeFuture.whenComplete { [self] _ in release(id) }
        } else if let (refusals, held) = logRefusals {
            logger.notice(
                "refusing unauthenticated \(listener) connections over their limits; further refusals are logged once a minute",
                metadata: [
                    "peer.uid": "\(owner)", "\(listener).max_pending_per_uid": "\(perUser)", "\(listener).pending": "\(held)",
                    "\(listener).pending_limit": "\(limit)", "\(listener).refused": "\(refusals)",
                ])
        }
        return admitted
    }

    /// `channel` has authenticated: it leaves the pool (the authenticated connections have their
    /// own limit). Nothing happens for a channel that is not counted.
    public func authenticated(_ channel: any Channel) {
        release(ObjectIdentifier(channel))
    }

    private func release(_ id: ObjectIdentifier) {
        state.withLock { state in
            guard let owner = state.byChannel.removeValue(forKey: id) else { return }
            let left = state.byOwner[owner, default: 1] - 1
            state.byOwner[owner] = left > 0 ? left : nil
        }
    }

    /// The owner of `channel`'s peer, or ``Owner/unknown`` (the first failure of a kind that
    /// could last is logged).
    private func owner(of channel: any Channel) -> Owner {
        guard let remote = channel.remoteAddress, let remoteHost = remote.ipAddress, let remotePort = remote.port,
            let local = channel.localAddress, let localHost = local.ipAddress, let localPort = local.port
        else { return .unknown }
        switch owners.uid(ofPeer: (remoteHost, remotePort), local: (localHost, localPort)) {
        case .success(let uid):
            return .uid(uid)
        case .failure(let error) where error.code == .peerGone:
            return .unknown  // it closed already: it will not hold its place for long
        case .failure(let error):
            let logs = state.withLock { state in
                defer { state.lookupFailureLogged = true }
                return !state.lookupFailureLogged
            }
            if logs {
                logger.warning(
                    "cannot tell which user opened a \(listener) connection; connections whose user is unknown share one user's limit ([\(listener)] max_pending_per_uid); logged once",
                    metadata: ["error": "\(error)"])
            }
            return .unknown
        }
    }
}
