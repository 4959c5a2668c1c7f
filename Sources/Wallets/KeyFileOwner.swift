#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C `struct group`, named here because ``KeyFileOwner`` has members called `group`.
private typealias GroupEntry = group

/// Who a new key file is given to: `passtap keygen --owner USER[:GROUP]`.
///
/// `USER` and `GROUP` are account names. Without `GROUP` the file gets the user's primary group.
/// The names are resolved when the owner is made, so an unknown user is reported before any key
/// is written.
public struct KeyFileOwner: Hashable, Sendable, CustomStringConvertible {
    /// The user, as given.
    public let user: String
    /// Its uid.
    public let uid: UInt32
    /// The group, as given, or the user's primary group's id as text.
    public let group: String
    /// Its gid.
    public let gid: UInt32

    /// How user and group names become ids; ``system`` asks the system's account databases.
    public struct Accounts: Sendable {
        /// The uid and primary gid of a user name, or `nil` if there is no such user.
        public var user: @Sendable (String) -> (uid: UInt32, gid: UInt32)?
        /// The gid of a group name, or `nil` if there is no such group.
        public var group: @Sendable (String) -> UInt32?

        /// Lookups with custom functions (tests give a fixed table).
        public init(
            user: @escaping @Sendable (String) -> (uid: UInt32, gid: UInt32)?,
            group: @escaping @Sendable (String) -> UInt32?
        ) {
            self.user = user
            self.group = group
        }

        /// getpwnam_r(3) and getgrnam_r(3): /etc/passwd and /etc/group, or whatever NSS serves.
        public static let system = Accounts(user: systemUser, group: systemGroup)

        private static func systemUser(_ name: String) -> (uid: UInt32, gid: UInt32)? {
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buffer = [CChar](repeating: 0, count: 16 * 1024)
            guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
            return (UInt32(entry.pw_uid), UInt32(entry.pw_gid))
        }

        private static func systemGroup(_ name: String) -> UInt32? {
            var entry = GroupEntry()
            var result: UnsafeMutablePointer<GroupEntry>? = nil
            var buffer = [CChar](repeating: 0, count: 64 * 1024)
            guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
            return UInt32(entry.gr_gid)
        }
    }

    /// Parses and resolves `USER` or `USER:GROUP`.
    public init(parsing text: String, accounts: Accounts = .system) throws(KeyFileOwnerError) {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let userName = parts.first, !userName.isEmpty, parts.count == 1 || !parts[1].isEmpty else {
            throw KeyFileOwnerError(.malformed, "--owner \(text): expected USER or USER:GROUP, e.g. passtapd or passtapd:passtapd")
        }
        guard let account = accounts.user(userName) else {
            throw KeyFileOwnerError(.unknownUser, "--owner \(text): no user \(userName) on this system (is the package installed? it creates passtapd)")
        }
        user = userName
        uid = account.uid
        if parts.count == 2 {
            let groupName = parts[1]
            guard let found = accounts.group(groupName) else {
                throw KeyFileOwnerError(.unknownGroup, "--owner \(text): no group \(groupName) on this system")
            }
            gid = found
            group = groupName
        } else {
            gid = account.gid
            group = String(account.gid)
        }
    }

    /// `user:group`, as given (the group as a gid when only the user was).
    public var description: String { "\(user):\(group)" }

    /// Gives `path` to this owner (lchown: a symbolic link itself, never what it leads to).
    public func apply(toFile path: String) throws(KeyFileOwnerError) {
        guard lchown(path, uid, gid) == 0 else {
            let code = errno
            if code == EPERM {
                throw KeyFileOwnerError(
                    .notPermitted,
                    "cannot give \(path) to \(self): not permitted (only root may give a file to another user; run as root, or leave out --owner)")
            }
            throw KeyFileOwnerError(.failed, "cannot give \(path) to \(self): \(String(cString: strerror(code)))")
        }
    }
}

/// Why `--owner` cannot be used: a malformed value, an unknown user or group, or a chown that
/// failed. Equal by ``code``.
public struct KeyFileOwnerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable {
        /// Not `USER` or `USER:GROUP`.
        case malformed
        /// No such user.
        case unknownUser = "unknown_user"
        /// No such group.
        case unknownGroup = "unknown_group"
        /// chown was refused (EPERM): only root may give files away.
        case notPermitted = "not_permitted"
        /// chown failed otherwise.
        case failed
    }

    /// What went wrong.
    public let code: Code
    /// The whole message, naming the value and what to do.
    public let description: String

    init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
