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

    /// Limits of `maximumConnections` connections, `maximumRequestBytes` each, closed after
    /// `requestDeadline`.
    public init(maximumConnections: Int, maximumRequestBytes: Int, requestDeadline: TimeAmount) {
        self.maximumConnections = maximumConnections
        self.maximumRequestBytes = maximumRequestBytes
        self.requestDeadline = requestDeadline
    }
}
