public import PassTapCore

/// What the ``SocketServer`` is told by `[socket]` and `[events]` in `passtapd.toml`.
public struct SocketServerConfiguration: Sendable, Hashable {
    /// `[socket] path`: where the socket file is created.
    public var path: String
    /// `[socket] mode`: the socket file's permission bits, applied right after bind.
    public var mode: UInt16
    /// `[socket] group`: the group to give the socket file; `nil` leaves it as created.
    public var group: String?
    /// `[socket] max_clients`: connections beyond this get `too_many_clients` and are closed.
    public var maxClients: Int
    /// `[socket] allow_transmit`: whether `card.transmit` is served.
    public var allowTransmit: Bool
    /// `[events] client_queue`: how many events may wait for one client before it loses some.
    public var clientQueue: Int
    /// The configured VAS pass type ids, which `vas.read` may name; `nil` when `[vas]` is disabled.
    public var vasMerchants: [String]?
    /// `[access]`: the roles of each peer, by its credentials.
    public var access: Configuration.Access
    /// `[socket] max_clients_per_uid`: connections one user may hold at once.
    public var maxClientsPerUID: Int
    /// `[socket] idle_timeout_ms`: how long a connection that is neither subscribed nor waiting for
    /// an answer may stay silent.
    public var idleTimeout: Duration
    /// `[socket] vas_reads_per_uid`: `vas.read`s one user may have waiting on one reader.
    public var vasReadsPerUID: Int
    /// Whether ``SocketServer/run()`` judges the directories on the socket's path (see
    /// `SocketFile`). Always on in the daemon; a test turns it off (internal, through
    /// `@testable import`) to show that the permission step cannot be redirected even in a
    /// directory another user controls.
    var checksDirectories = true

    /// Creates a configuration; the defaults are those of the shipped `passtapd.toml`.
    public init(
        path: String, mode: UInt16 = 0o660, group: String? = nil, maxClients: Int = 64,
        allowTransmit: Bool = false, clientQueue: Int = 256, vasMerchants: [String]? = nil,
        access: Configuration.Access = Configuration.Access(), maxClientsPerUID: Int = 32,
        idleTimeout: Duration = .seconds(60), vasReadsPerUID: Int = 1
    ) {
        self.path = path
        self.mode = mode
        self.group = group
        self.maxClients = maxClients
        self.allowTransmit = allowTransmit
        self.clientQueue = clientQueue
        self.vasMerchants = vasMerchants
        self.access = access
        self.maxClientsPerUID = maxClientsPerUID
        self.idleTimeout = idleTimeout
        self.vasReadsPerUID = vasReadsPerUID
    }

    /// The umask under which the socket file is created no looser than ``mode``: `bind()` makes
    /// the file with mode 0777 less the umask, and this mask keeps only ``mode``'s owner bits, so
    /// until ``SocketServer`` has set the group and the mode, nobody but the daemon's user can
    /// connect. (A socket file needs write permission to be connected to.)
    ///
    /// `passtapd` sets it as its umask at start (`Daemon.restrictFileCreation(for:)`): the umask
    /// is per process, so the server itself cannot set it only around its own `bind()`.
    public var fileCreationMask: UInt16 {
        0o777 & ~(mode & 0o700)
    }

    /// Takes the socket settings of a loaded daemon configuration.
    public init(_ configuration: Configuration) {
        self.init(
            path: configuration.socket.path, mode: configuration.socket.mode, group: configuration.socket.group,
            maxClients: configuration.socket.maxClients, allowTransmit: configuration.socket.allowTransmit,
            clientQueue: configuration.events.clientQueue,
            vasMerchants: configuration.vas.enabled ? configuration.vas.passTypeIDs : nil,
            access: configuration.access, maxClientsPerUID: configuration.socket.maxClientsPerUID,
            idleTimeout: .milliseconds(configuration.socket.idleTimeoutMilliseconds),
            vasReadsPerUID: configuration.socket.vasReadsPerUID)
    }
}
