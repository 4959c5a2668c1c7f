import CoreMetrics
import Prometheus
import Synchronization

/// Counters with one label, made on first use and kept: `passtap_config_reloads_total{outcome}`,
/// `passtap_web_auth_failures_total{reason}` and the forwarder's per-sink and per-reason counters.
final class LabelledCounters: Sendable {
    private struct Key: Hashable {
        var name: String
        var label: String
        var value: String
    }

    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[Key: CoreMetrics.Counter]>([:])

    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
    }

    /// The counter `name` with the one label `label` (name and value).
    func counter(_ name: String, _ label: (String, String)) -> CoreMetrics.Counter {
        counters.withLock { counters in
            let key = Key(name: name, label: label.0, value: label.1)
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: [label], factory: factory)
            counters[key] = counter
            return counter
        }
    }
}
