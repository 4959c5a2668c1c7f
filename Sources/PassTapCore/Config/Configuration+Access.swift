/// What a socket connection may do, by role (`[access]` in `passtapd.toml`). The names are fixed.
public enum AccessRole: String, Hashable, Sendable, CaseIterable, Comparable {
    /// `status`, `readers.list`, `events.subscribe` (pass messages withheld).
    case observe
    /// Pass messages in events, and `vas.read`.
    case read
    /// `card.transmit` (which also needs `[socket] allow_transmit = true`).
    case transmit
    /// `forward.retry` and `forward.drop`: acting on the forwarding outbox (`[access] manage`; by
    /// default root and the daemon's own user only).
    case manage

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One entry of an `[access]` list, with user and group names already resolved to ids (at config
/// load, never per connection).
public enum AccessPrincipal: Hashable, Sendable, CustomStringConvertible {
    /// `"*"`: every peer.
    case everyone
    /// `"user:NAME"` or `"uid:N"`.
    case user(UInt32)
    /// `"group:NAME"` or `"gid:N"`: the peer's primary group or one of its supplementary groups.
    case group(UInt32)

    public var description: String {
        switch self {
        case .everyone: return "*"
        case .user(let uid): return "uid:\(uid)"
        case .group(let gid): return "gid:\(gid)"
        }
    }
}

extension Configuration {
    /// `[access]`: which peers of the socket hold which role. Root (uid 0) always holds every role.
    public struct Access: Sendable, Hashable {
        /// `observe`: `status`, `readers.list`, `events.subscribe`. Default `["*"]`.
        public var observe: [AccessPrincipal] = [.everyone]
        /// `read`: pass messages in events, `vas.read`. The config loader fills an empty list with
        /// the socket file's group; here (a configuration built in code) empty means root only.
        public var read: [AccessPrincipal] = []
        /// `transmit`: `card.transmit`. Empty means root only.
        public var transmit: [AccessPrincipal] = []
        /// `manage`: `forward.retry`, `forward.drop`. The config loader fills an absent list with
        /// the daemon's own user; here (a configuration built in code) empty means root only.
        public var manage: [AccessPrincipal] = []

        /// The defaults of a configuration built in code: everyone observes, root does the rest.
        public init() {}

        /// Creates lists for each role.
        public init(observe: [AccessPrincipal], read: [AccessPrincipal], transmit: [AccessPrincipal], manage: [AccessPrincipal] = []) {
            self.observe = observe
            self.read = read
            self.transmit = transmit
            self.manage = manage
        }

        /// The roles of a peer with user `uid` whose groups (primary and supplementary) are `groups`.
        public func roles(uid: UInt32, groups: Set<UInt32>) -> Set<AccessRole> {
            if uid == 0 { return Set(AccessRole.allCases) }
            var roles = Set<AccessRole>()
            for role in AccessRole.allCases where Self.admits(principals(for: role), uid: uid, groups: groups) {
                roles.insert(role)
            }
            return roles
        }

        /// The list for `role`.
        public func principals(for role: AccessRole) -> [AccessPrincipal] {
            switch role {
            case .observe: return observe
            case .read: return read
            case .transmit: return transmit
            case .manage: return manage
            }
        }

        private static func admits(_ principals: [AccessPrincipal], uid: UInt32, groups: Set<UInt32>) -> Bool {
            principals.contains { principal in
                switch principal {
                case .everyone: return true
                case .user(let id): return id == uid
                case .group(let id): return groups.contains(id)
                }
            }
        }
    }
}
