public import CoreMetrics
import Synchronization

/// Counters with one label, made on first use and kept: `passtap_config_reloads_total{outcome}`,
/// `passtap_web_auth_failures_total{reason}` and the forwarder's per-sink and per-reason counters.
public final class LabelledCounters: Sendable {
    private struct Key: Hashable {
        var name: String
        var label: String
        var value: String
    }

    private let factory: any MetricsFactory
    private let counters = Mutex<[Key: CoreMetrics.Counter]>([:])

    /// Counters made by `factory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// The counter `name` with the one label `label` (name and value).
    public func counter(_ name: String, _ label: (String, String)) -> CoreMetrics.Counter {
        counters.withLock { counters in
            let key = Key(name: name, label: label.0, value: label.1)
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: [label], factory: factory)
            counters[key] = counter
            return counter
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, as swift-metrics' timers record it.
    public var metricNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// The histogram buckets a feature's timers use, by series name: a feature declares its own, and
/// the metrics slice gives them to the Prometheus factory before any series is made.
public typealias HistogramBuckets = [String: [Duration]]
