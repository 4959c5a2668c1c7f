public import PassTapCore

/// The result of `status`.
///
/// ```json
/// {"version": "0.1.0", "protocol": 1, "instance": "6F1C...", "uptime_s": 12.5, "readers": [...]}
/// ```
public struct StatusResult: Sendable, Hashable, Codable {
    /// The daemon's version (``PassTapVersion``).
    public var version: String
    /// The socket protocol version (``PassTapProtocolVersion``).
    public var protocolVersion: Int
    /// Random per daemon start: when it changes, sequence numbers started again at 1.
    public var instance: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// The readers, as `readers.list` gives them.
    public var readers: [ReaderInfo]

    /// Creates a status answer.
    public init(version: String, protocolVersion: Int, instance: String, uptimeSeconds: Double, readers: [ReaderInfo]) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.instance = instance
        self.uptimeSeconds = uptimeSeconds
        self.readers = readers
    }

    private enum CodingKeys: String, CodingKey {
        case version
        case protocolVersion = "protocol"
        case instance
        case uptimeSeconds = "uptime_s"
        case readers
    }
}
