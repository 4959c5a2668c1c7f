import NIOCore
import PassTapCore
import PassTapProtocol

/// The connections the ``SocketServer`` serves now, with who they are and the roles they were
/// given, so a reload of `[access]` can find those whose roles it changes. Not thread-safe on its
/// own: the server's lock guards it, and orders admissions and reloads (a connection's roles are
/// computed and it is added under that lock, which a reload's scan,
/// ``SocketServer/configurationChanged(from:to:)``, holds once the reload is in force).
struct AdmittedClients {
    struct Client {
        let peer: PeerCredentials
        let roles: Set<AccessRole>
        let channel: any Channel
    }

    /// A client whose roles differ under new `[access]` lists.
    struct Changed {
        let peer: PeerCredentials
        let roles: Set<AccessRole>
        let newRoles: Set<AccessRole>
        let channel: any Channel
    }

    private var clients: [UInt64: Client] = [:]
    private var nextID: UInt64 = 0

    /// Records a connection; returns its id for ``remove(_:)``.
    mutating func add(peer: PeerCredentials, roles: Set<AccessRole>, channel: any Channel) -> UInt64 {
        let id = nextID
        nextID += 1
        clients[id] = Client(peer: peer, roles: roles, channel: channel)
        return id
    }

    /// Forgets a connection that ended.
    mutating func remove(_ id: UInt64) {
        clients[id] = nil
    }

    /// The connections whose roles `access` would set differently.
    func changedRoles(under access: Configuration.Access) -> [Changed] {
        clients.values.compactMap { client in
            let roles = access.roles(uid: client.peer.uid, groups: client.peer.allGroups)
            guard roles != client.roles else { return nil }
            return Changed(peer: client.peer, roles: client.roles, newRoles: roles, channel: client.channel)
        }
    }
}
