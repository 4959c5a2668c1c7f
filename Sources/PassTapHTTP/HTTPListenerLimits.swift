public import NIOCore

/// What one ``HTTPListener`` allows: each listener has its own (metrics: `[metrics]
/// max_connections`, 8 KiB, 10 s).
public struct HTTPListenerLimits: Sendable, Hashable {
    /// At most this many connections are held at once; one more is closed as soon as it is
    /// accepted, unanswered (``ConnectionCapHandler``). An upgraded WebSocket still counts.
    public var maximumConnections: Int
    /// A connection that sends more than this many bytes before it is answered is closed
    /// (``RequestGuardHandler``). Not applied after a WebSocket upgrade.
    public var maximumRequestBytes: Int
    /// A connection still open this long after it was accepted is closed. Not applied after a
    /// WebSocket upgrade.
    public var requestDeadline: TimeAmount

    /// The kernel's queue of connections not accepted yet (`listen(2)`'s backlog, at most
    /// `net.core.somaxconn`). While it is full, new connections wait for the client's SYN to be
    /// sent again (1 s, then 3 s): a flood that keeps it full delays everyone else's connect. A
    /// socket systemd passes keeps its unit's `Backlog=` (`SOMAXCONN` by default).
    public var acceptBacklog: Int

    /// Limits of `maximumConnections` connections, `maximumRequestBytes` each, closed after
    /// `requestDeadline`, with `acceptBacklog` waiting to be accepted.
    public init(maximumConnections: Int, maximumRequestBytes: Int, requestDeadline: TimeAmount, acceptBacklog: Int = 32) {
        self.maximumConnections = maximumConnections
        self.maximumRequestBytes = maximumRequestBytes
        self.requestDeadline = requestDeadline
        self.acceptBacklog = acceptBacklog
    }
}
