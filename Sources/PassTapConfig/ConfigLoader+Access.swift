#if canImport(Glibc)
import ConfigKit
import Glibc
#endif
import PassTapCore

extension ConfigLoader {
    /// Reads `[access]`, resolving user and group names now (at load, never per connection).
    ///
    /// An empty (or absent) `read` list means the socket file's group: `[socket] group`, or the
    /// group passtapd runs as when that is not set (the group a new socket file gets).
    ///
    /// On a reload that changes `[socket] group` (restart-only), this default follows the file's
    /// group while the running socket keeps its own; it is still never looser than both: only
    /// members of the running socket's group (and root, and passtapd's own user, the socket's
    /// owner) can connect, so the role reaches members of both groups only. Unlike a key file
    /// (``keyFilePolicy(for:listening:)``), it needs no second check.
    ///
    /// An absent `manage` list means passtapd's own user (root holds every role anyway); an
    /// explicit empty one means root only.
    static func readAccess(_ table: inout TableReader?, socket: Configuration.Socket) throws(ConfigurationError) -> Configuration.Access {
        var access = Configuration.Access()
        access.manage = [.user(geteuid())]
        if var table {
            for role in AccessRole.allCases {
                guard let entries = try table.strings(role.rawValue) else { continue }
                var principals: [AccessPrincipal] = []
                for (offset, entry) in entries.enumerated() {
                    principals.append(try principal(entry, key: role.rawValue, element: offset, in: table))
                }
                switch role {
                case .observe: access.observe = principals
                case .read: access.read = principals
                case .transmit: access.transmit = principals
                case .manage: access.manage = principals
                }
            }
            try table.rejectUnknownKeys()
        }
        if access.read.isEmpty {
            access.read = [.group(socketGroupID(socket) ?? getegid())]
        }
        return access
    }

    /// The id of `[socket] group`, when it names a group that exists (a missing one is reported
    /// when the socket is set up, with the socket's own message).
    private static func socketGroupID(_ socket: Configuration.Socket) -> UInt32? {
        guard let name = socket.group, let group = getgrnam(name) else { return nil }
        return group.pointee.gr_gid
    }

    private static func principal(_ entry: String, key: String, element: Int, in table: TableReader) throws(ConfigurationError) -> AccessPrincipal {
        let expected = #"expected "*", "user:NAME", "group:NAME", "uid:N" or "gid:N""#
        if entry == "*" { return .everyone }
        guard let colon = entry.firstIndex(of: ":") else {
            throw table.error(key, element: element, "\(expected), found \"\(entry)\"")
        }
        let kind = entry[..<colon]
        let value = String(entry[entry.index(after: colon)...])
        switch kind {
        case "user":
            guard !value.isEmpty, let user = getpwnam(value) else {
                throw table.error(key, element: element, "expected an existing user after \"user:\", found no user \"\(value)\" on this machine")
            }
            return .user(user.pointee.pw_uid)
        case "group":
            guard !value.isEmpty, let group = getgrnam(value) else {
                throw table.error(key, element: element, "expected an existing group after \"group:\", found no group \"\(value)\" on this machine")
            }
            return .group(group.pointee.gr_gid)
        case "uid", "gid":
            guard let id = UInt32(value), id != UInt32.max else {
                throw table.error(key, element: element, "expected a number after \"\(kind):\", found \"\(value)\"")
            }
            return kind == "uid" ? .user(id) : .group(id)
        default:
            throw table.error(key, element: element, "\(expected), found \"\(entry)\"")
        }
    }
}
