public import CoreMetrics
public import MetricsKit
public import PassTapCore
import Synchronization

/// Forwarding's Prometheus series (docs/operations.md, "Metrics"), made through swift-metrics on
/// the factory the metrics slice lends: backlogs and latencies by sink name (configured ones, and
/// removed ones until the outbox forgets them), counters by sink or drop reason.
public final class ForwardMetrics: ForwardMetricsObserver, Sendable {
    /// The series' names.
    public enum Name {
        public static let forwardPending = "passtap_forward_pending"
        public static let forwardOldestPendingAge = "passtap_forward_oldest_pending_age_seconds"
        public static let forwardDelivered = "passtap_forward_delivered_total"
        public static let forwardRetries = "passtap_forward_retries_total"
        public static let forwardDead = "passtap_forward_dead_total"
        public static let forwardDropped = "passtap_forward_dropped_total"
        public static let forwardLatency = "passtap_forward_delivery_latency_seconds"
    }

    /// Forwarding latency buckets, publication to delivery: some milliseconds when the receiver
    /// is up, up to hours across an outage.
    public static let histogramBuckets: HistogramBuckets = [
        Name.forwardLatency: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600].map { .milliseconds(Int64($0 * 1000)) }
    ]

    private struct Backlog {
        var pending: Meter
        var age: Meter
    }

    private struct State {
        var backlogs: [String: Backlog] = [:]
        var latencies: [String: CoreMetrics.Timer] = [:]
    }

    private let factory: any MetricsFactory
    private let state = Mutex(State())
    private let counters: LabelledCounters

    /// Series made by `factory` (which must know ``histogramBuckets``).
    public init(factory: any MetricsFactory) {
        self.factory = factory
        counters = LabelledCounters(factory: factory)
    }

    public func forwardBacklogs(_ backlogs: [ForwardBacklog]) {
        let gone = state.withLock { state -> [Backlog] in
            for backlog in backlogs {
                let series =
                    state.backlogs[backlog.sink]
                    ?? Backlog(
                        pending: Meter(label: Name.forwardPending, dimensions: [("sink", backlog.sink)], factory: factory),
                        age: Meter(label: Name.forwardOldestPendingAge, dimensions: [("sink", backlog.sink)], factory: factory))
                state.backlogs[backlog.sink] = series
                series.pending.set(backlog.pending)
                let (seconds, attoseconds) = backlog.oldestPendingAge.components
                series.age.set(Double(seconds) + Double(attoseconds) / 1e18)
            }
            let listed = Set(backlogs.map(\.sink))
            let gone = state.backlogs.keys.filter { !listed.contains($0) }
            return gone.compactMap { state.backlogs.removeValue(forKey: $0) }
        }
        // Unregisters the gauges of a sink no longer listed.
        for series in gone {
            series.pending.destroy()
            series.age.destroy()
        }
    }

    public func forwardDelivered(sink: String, latencies: [Duration]) {
        counters.counter(Name.forwardDelivered, ("sink", sink)).increment(by: latencies.count)
        let timer = latency(of: sink)
        for latency in latencies { timer.recordNanoseconds(latency.metricNanoseconds) }
    }

    public func forwardRetried(sink: String) {
        counters.counter(Name.forwardRetries, ("sink", sink)).increment()
    }

    public func forwardDead(sink: String) {
        counters.counter(Name.forwardDead, ("sink", sink)).increment()
    }

    public func forwardDropped(reason: ForwardDropped.Reason, count: Int) {
        counters.counter(Name.forwardDropped, ("reason", reason.rawValue)).increment(by: count)
    }

    /// The latency histogram of `sink`.
    private func latency(of sink: String) -> CoreMetrics.Timer {
        state.withLock { state in
            if let timer = state.latencies[sink] { return timer }
            let timer = CoreMetrics.Timer(label: Name.forwardLatency, dimensions: [("sink", sink)], factory: factory)
            state.latencies[sink] = timer
            return timer
        }
    }
}
