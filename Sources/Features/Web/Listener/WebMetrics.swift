public import CoreMetrics
import MetricsKit

/// The web listener's Prometheus series (docs/operations.md, "Metrics"), made through
/// swift-metrics on the factory the metrics slice lends: authenticated `/rpc` clients, and failed
/// `auth` attempts by reason. Made whenever `/metrics` is served, so the gauge reads 0 with the
/// listener off.
public final class WebMetrics: Sendable {
    /// The series' names.
    public enum Name {
        public static let webClients = "passtap_web_clients_connected"
        public static let webAuthFailures = "passtap_web_auth_failures_total"
    }

    private let clients: Meter
    private let failures: LabelledCounters

    /// Series made by `factory`.
    public init(factory: any MetricsFactory) {
        clients = Meter(label: Name.webClients, dimensions: [], factory: factory)
        clients.set(0)
        failures = LabelledCounters(factory: factory)
    }

    /// A `/rpc` client authenticated (`+1`) or an authenticated one left (`-1`).
    public func clientsChanged(by delta: Int) {
        if delta >= 0 { clients.increment(by: Double(delta)) } else { clients.decrement(by: Double(-delta)) }
    }

    /// A `/rpc` `auth` failed, answered with `reason` (`auth_failed`, `auth_rate_limited`,
    /// `auth_outdated`).
    public func authFailed(reason: String) {
        failures.counter(Name.webAuthFailures, ("reason", reason)).increment()
    }
}
