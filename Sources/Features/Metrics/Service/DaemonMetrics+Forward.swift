import CoreMetrics
public import PassTapCore
public import PassTapForward
import Prometheus
import Synchronization

extension DaemonMetrics: ForwardMetricsObserver {
    public func forwardBacklogs(_ backlogs: [ForwardBacklog]) {
        forward.backlogs(backlogs)
    }

    public func forwardDelivered(sink: String, latencies: [Duration]) {
        forward.counter(Name.forwardDelivered, ("sink", sink)).increment(by: latencies.count)
        let timer = forward.latency(of: sink)
        for latency in latencies { timer.recordNanoseconds(Self.nanoseconds(latency)) }
    }

    public func forwardRetried(sink: String) {
        forward.counter(Name.forwardRetries, ("sink", sink)).increment()
    }

    public func forwardDead(sink: String) {
        forward.counter(Name.forwardDead, ("sink", sink)).increment()
    }

    public func forwardDropped(reason: ForwardDropped.Reason, count: Int) {
        forward.counter(Name.forwardDropped, ("reason", reason.rawValue)).increment(by: count)
    }
}

/// The forwarder's series, labelled by sink name (configured ones, and removed ones until the
/// outbox forgets them) or drop reason.
final class ForwardSeries: Sendable {
    private struct Backlog {
        var pending: Meter
        var age: Meter
    }

    private struct State {
        var backlogs: [String: Backlog] = [:]
        var latencies: [String: CoreMetrics.Timer] = [:]
    }

    private let factory: PrometheusMetricsFactory
    private let state = Mutex(State())
    private let counters: LabelledCounters

    init(factory: PrometheusMetricsFactory, counters: LabelledCounters) {
        self.factory = factory
        self.counters = counters
    }

    /// Sets each sink's backlog gauges; unregisters those of a sink no longer listed.
    func backlogs(_ backlogs: [ForwardBacklog]) {
        let gone = state.withLock { state -> [Backlog] in
            for backlog in backlogs {
                let series =
                    state.backlogs[backlog.sink]
                    ?? Backlog(
                        pending: Meter(label: DaemonMetrics.Name.forwardPending, dimensions: [("sink", backlog.sink)], factory: factory),
                        age: Meter(label: DaemonMetrics.Name.forwardOldestPendingAge, dimensions: [("sink", backlog.sink)], factory: factory))
                state.backlogs[backlog.sink] = series
                series.pending.set(backlog.pending)
                let (seconds, attoseconds) = backlog.oldestPendingAge.components
                series.age.set(Double(seconds) + Double(attoseconds) / 1e18)
            }
            let listed = Set(backlogs.map(\.sink))
            let gone = state.backlogs.keys.filter { !listed.contains($0) }
            return gone.compactMap { state.backlogs.removeValue(forKey: $0) }
        }
        for series in gone {
            series.pending.destroy()
            series.age.destroy()
        }
    }

    /// The counter `name` with the one label `label`.
    func counter(_ name: String, _ label: (String, String)) -> CoreMetrics.Counter {
        counters.counter(name, label)
    }

    /// The latency histogram of `sink`.
    func latency(of sink: String) -> CoreMetrics.Timer {
        state.withLock { state in
            if let timer = state.latencies[sink] { return timer }
            let timer = CoreMetrics.Timer(label: DaemonMetrics.Name.forwardLatency, dimensions: [("sink", sink)], factory: factory)
            state.latencies[sink] = timer
            return timer
        }
    }
}
