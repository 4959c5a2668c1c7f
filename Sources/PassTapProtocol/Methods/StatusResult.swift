public import PassTapCore

/// The result of `status`.
///
/// ```json
/// {"version": "0.1.0", "protocol": 1, "instance": "6F1C...", "uptime_s": 12.5, "readers": [...],
///  "backends": [...], "last_taps": [...], "health": {...}}
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
    /// The configured backends and whether each is up.
    public var backends: [StatusBackend]
    /// Each present reader's last tap (readers without one are left out).
    public var lastTaps: [StatusLastTap]
    /// The verdict for monitoring; `nil` only from a daemon older than this field.
    public var health: StatusHealth?
    /// Authenticated `/rpc` (WebSocket) connections now; `nil` (absent) when `[web] listen` is off.
    public var webClients: Int?

    /// Creates a status answer.
    public init(
        version: String, protocolVersion: Int, instance: String, uptimeSeconds: Double, readers: [ReaderInfo],
        backends: [StatusBackend] = [], lastTaps: [StatusLastTap] = [], health: StatusHealth? = nil, webClients: Int? = nil
    ) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.instance = instance
        self.uptimeSeconds = uptimeSeconds
        self.readers = readers
        self.backends = backends
        self.lastTaps = lastTaps
        self.health = health
        self.webClients = webClients
    }

    private enum CodingKeys: String, CodingKey {
        case version
        case protocolVersion = "protocol"
        case instance
        case uptimeSeconds = "uptime_s"
        case readers
        case backends
        case lastTaps = "last_taps"
        case health
        case webClients = "web_clients"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        protocolVersion = try container.decode(Int.self, forKey: .protocolVersion)
        instance = try container.decode(String.self, forKey: .instance)
        uptimeSeconds = try container.decode(Double.self, forKey: .uptimeSeconds)
        readers = try container.decode([ReaderInfo].self, forKey: .readers)
        backends = try container.decodeIfPresent([StatusBackend].self, forKey: .backends) ?? []
        lastTaps = try container.decodeIfPresent([StatusLastTap].self, forKey: .lastTaps) ?? []
        health = try container.decodeIfPresent(StatusHealth.self, forKey: .health)
        webClients = try container.decodeIfPresent(Int.self, forKey: .webClients)
    }
}
