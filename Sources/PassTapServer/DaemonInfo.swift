import Foundation

/// Who is answering on the socket: reported by `status` and `events.subscribe`.
public struct DaemonInfo: Sendable {
    /// The daemon's version string.
    public var version: String
    /// Random per start: sequence numbers only compare within one instance.
    public var instance: String
    /// When the daemon started, on the monotonic clock (for `uptime_s`).
    public var started: ContinuousClock.Instant

    /// Creates the description of a running daemon.
    public init(version: String, instance: String, started: ContinuousClock.Instant) {
        self.version = version
        self.instance = instance
        self.started = started
    }

    /// The description of a daemon starting now, with a fresh random instance id.
    public static func startingNow(version: String) -> DaemonInfo {
        DaemonInfo(version: version, instance: UUID().uuidString.lowercased(), started: .now)
    }

    /// Seconds since ``started``, to the millisecond.
    public var uptimeSeconds: Double { uptimeSeconds(at: .now) }

    /// Seconds from ``started`` to `now`, to the millisecond.
    public func uptimeSeconds(at now: ContinuousClock.Instant) -> Double {
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds * 1000).rounded(.down) / 1000
    }
}
