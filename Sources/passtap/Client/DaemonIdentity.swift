import PassTapProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which users `passtap` accepts as the one serving the socket, checked right after connecting
/// and before a byte is sent, so a program that took the socket path (while passtapd was down,
/// or in a directory others can write) never sees a request nor answers one.
///
/// Accepted: root (uid 0), the user `passtapd` if the system has one (packages run the daemon as
/// it), and the user given with `--daemon-user` or `PASSTAP_DAEMON_USER`, a name or a uid.
struct DaemonIdentity: Sendable {
    /// The name packages give the daemon's user.
    static let packagedUser = "passtapd"

    /// The accepted uids, each with a name for messages, in the order they are listed.
    let accepted: [(uid: UInt32, name: String)]

    init(accepted: [(uid: UInt32, name: String)]) {
        var seen = Set<UInt32>()
        self.accepted = accepted.filter { seen.insert($0.uid).inserted }
    }

    /// Root, the `passtapd` user if it exists, and `override` (a user name or a uid) if given.
    /// - Throws: ``CLIError/unknownDaemonUser(_:)`` when `override` names no user.
    static func resolve(override: String?, lookup: (String) -> UInt32? = Self.uid(ofUser:)) throws(CLIError) -> DaemonIdentity {
        var accepted: [(uid: UInt32, name: String)] = [(0, "root")]
        if let uid = lookup(packagedUser) { accepted.append((uid, packagedUser)) }
        if let override {
            if let uid = UInt32(override) {
                accepted.append((uid, "--daemon-user"))
            } else if let uid = lookup(override) {
                accepted.append((uid, override))
            } else {
                throw .unknownDaemonUser(override)
            }
        }
        return DaemonIdentity(accepted: accepted)
    }

    /// Whether `credentials` (the server's, from `SO_PEERCRED`) are those of an accepted user.
    func accepts(_ credentials: PeerCredentials) -> Bool {
        accepted.contains { $0.uid == credentials.uid }
    }

    /// The accepted users for a message: `uid 0 (root) or 998 (passtapd)`.
    var expected: String {
        "uid " + accepted.map { "\($0.uid) (\($0.name))" }.joined(separator: " or ")
    }

    /// The uid of the user `name`, or `nil` if there is none (or it cannot be looked up).
    static func uid(ofUser name: String) -> UInt32? {
        account(named: name)?.uid
    }

    /// The uid and primary gid of the user `name`, or `nil` if there is none.
    static func account(named name: String) -> (uid: UInt32, gid: UInt32)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return (UInt32(entry.pw_uid), UInt32(entry.pw_gid))
    }
}
