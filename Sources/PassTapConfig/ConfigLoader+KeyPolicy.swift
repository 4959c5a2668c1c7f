import ConfigKit
import PassTapCore
import Wallets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ConfigLoader {
    /// The key-file rules for a daemon running as this process with these socket settings: keys
    /// owned by root or this process's user, readable by its own group only, and never by the
    /// socket's group. The socket's group is `[socket] group`, or, without one, the group the
    /// socket file is created with: this process's own (so then no group may read a key). A
    /// socket mode that gives its group nothing has no socket group.
    ///
    /// On a reload, `listening` is the running daemon's `[socket]`: its socket keeps that group and
    /// mode until a restart, so that socket's group may not read a key either (the stricter policy
    /// of the two wins). `nil` judges `socket` alone.
    ///
    /// A `[socket] group` this system does not have is no key's group; the socket server refuses it
    /// at start.
    static func keyFilePolicy(for socket: Configuration.Socket, listening: Configuration.Socket? = nil) -> MerchantKeyFilePolicy {
        var policy = MerchantKeyFilePolicy(socketGroup: socketGroup(of: socket))
        if let listening, let group = socketGroup(of: listening), group != policy.socketGroup {
            policy.listeningSocketGroup = group
        }
        return policy
    }

    /// The group that may open a socket with these settings, if any (see ``keyFilePolicy(for:listening:)``).
    private static func socketGroup(of socket: Configuration.Socket) -> UInt32? {
        guard socket.mode & 0o070 != 0 else { return nil }
        guard let name = socket.group else { return UInt32(getegid()) }
        return KeyFileOwner.Accounts.system.group(name)
    }
}
