import CoreMetrics
import Metrics
public import MetricsKit
public import PassTapCore
public import Prometheus
import Synchronization

/// The daemon's core Prometheus metrics, derived from its own events (``observe(_:_:_:)``), the tap
/// coordinator's timings (``sessionObserver``) and the socket server's clients. The feature
/// slices make their own series on ``factory`` (VAS reads, the web listener, forwarding).
///
/// Every series lives in the ``registry`` given at creation (the daemon makes its own; tests each
/// make one), through swift-metrics' API and swift-prometheus' factory: nothing here is global.
/// Labels are bounded: a reader id (what the reader stack names, gone with the reader) and fixed
/// words; never a UID, a payload, a message or a client. See docs/operations.md, "Metrics", for the list.
public final class DaemonMetrics: Sendable {
    /// The metric names, as scraped.
    public enum Name {
        public static let taps = "passtap_taps_total"
        public static let sessionDuration = "passtap_session_duration_seconds"
        public static let apduRoundTrip = "passtap_apdu_round_trip_seconds"
        public static let clients = "passtap_clients_connected"
        public static let eventsDropped = "passtap_events_dropped_total"
        public static let backendUp = "passtap_backend_up"
        public static let readerState = "passtap_reader_state"
        public static let reloads = "passtap_config_reloads_total"
        public static let buildInfo = "passtap_build_info"
    }


    /// The event kinds (of the config reloader) counted by ``Name/reloads``, by their wire names,
    /// and the `outcome` label each gives.
    static let reloadOutcomes = ["config.reloaded": "applied", "config.rejected": "rejected"]

    /// Session duration buckets: a VAS tap takes some tens of milliseconds, the default budget
    /// is 2 s.
    static let sessionBuckets: [Duration] = [5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000].map { .milliseconds($0) }
    /// APDU round trip buckets: a contactless exchange is about a millisecond to some tens.
    static let roundTripBuckets: [Duration] = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000].map { .microseconds($0 * 1000) }

    private struct ReaderSeries {
        var state: [ReaderInfo.State: Meter] = [:]
        var taps: [TapOutcome: CoreMetrics.Counter] = [:]
    }

    private struct State {
        var readers: [ReaderID: ReaderSeries] = [:]
        var backends: [String: Meter] = [:]
    }

    /// Where every series is registered; `GET /metrics` emits it.
    public let registry: PrometheusCollectorRegistry
    /// The factory every series is made with: the slices make theirs on it too (forwarding's).
    public let factory: PrometheusMetricsFactory
    private let state: Mutex<State>
    private let sessionDuration: CoreMetrics.Timer
    private let roundTrip: CoreMetrics.Timer
    private let clients: Meter
    private let dropped: CoreMetrics.Counter
    private let buildInfo: Meter
    /// Reload outcomes.
    private let labelled: LabelledCounters

    /// Metrics in `registry`, with `version` in `passtap_build_info`. `histogramBuckets` are the
    /// other slices' (forwarding's latency: ``factory`` makes their series).
    public init(registry: PrometheusCollectorRegistry, version: String, histogramBuckets: HistogramBuckets = [:]) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [Name.sessionDuration: Self.sessionBuckets, Name.apduRoundTrip: Self.roundTripBuckets].merging(
            histogramBuckets, uniquingKeysWith: { own, _ in own })
        self.factory = factory
        labelled = LabelledCounters(factory: factory)
        state = Mutex(State())
        sessionDuration = CoreMetrics.Timer(label: Name.sessionDuration, dimensions: [], factory: factory)
        roundTrip = CoreMetrics.Timer(label: Name.apduRoundTrip, dimensions: [], factory: factory)
        clients = Meter(label: Name.clients, dimensions: [], factory: factory)
        clients.set(0)
        dropped = CoreMetrics.Counter(label: Name.eventsDropped, dimensions: [], factory: factory)
        buildInfo = Meter(label: Name.buildInfo, dimensions: [("version", version)], factory: factory)
        buildInfo.set(1)
    }

    /// Updates the series one event touches.
    public func observe(_ kind: EventKind, _ reader: ReaderID?, _ payload: EventPayload) {
        switch (kind, payload) {
        case (.readerAdded, .reader(let info)), (.readerChanged, .reader(let info)):
            setState(info.state, of: info.id)
        case (.cardInserted, _):
            if let reader { setState(.present, of: reader) }
        case (.cardRemoved, _):
            if let reader { setState(.empty, of: reader) }
        case (.readerRemoved, _):
            if let reader { forget(reader) }
        case (.readResult, .readResult(let result)):
            if let reader { count(result, on: reader) }
        case (.backendUp, .backend(let name, _)):
            backendMeter(name).set(1)
        case (.backendDown, .backend(let name, _)):
            backendMeter(name).set(0)
        default:
            if let outcome = Self.reloadOutcomes[kind.rawValue] { recordReload(outcome: outcome) }
        }
    }

    /// Session durations and APDU round trips, for the tap coordinator.
    public var sessionObserver: SessionObserver {
        SessionObserver(
            sessionFinished: { [sessionDuration] _, duration in sessionDuration.recordNanoseconds(duration.metricNanoseconds) },
            roundTrip: { [roundTrip] _, duration in roundTrip.recordNanoseconds(duration.metricNanoseconds) })
    }

    /// A socket client was admitted (`+1`) or left (`-1`).
    public func clientsChanged(by delta: Int) {
        if delta >= 0 { clients.increment(by: Double(delta)) } else { clients.decrement(by: Double(-delta)) }
    }

    /// A subscriber was told it missed `count` events (`events.dropped`).
    public func eventsDropped(_ count: UInt64) {
        dropped.increment(by: Int64(clamping: count))
    }

    /// A configuration reload ended with `outcome` (`applied` or `rejected`).
    public func recordReload(outcome: String) {
        labelled.counter(Name.reloads, ("outcome", outcome)).increment()
    }

    // MARK: Series

    private func setState(_ current: ReaderInfo.State, of reader: ReaderID) {
        state.withLock { state in
            var series = state.readers[reader] ?? ReaderSeries()
            for candidate in [ReaderInfo.State.empty, .present, .unavailable] {
                let meter =
                    series.state[candidate]
                    ?? Meter(label: Name.readerState, dimensions: [("reader", reader.rawValue), ("state", candidate.rawValue)], factory: factory)
                series.state[candidate] = meter
                meter.set(candidate == current ? 1 : 0)
            }
            state.readers[reader] = series
        }
    }

    /// Unregisters every series labelled with `reader`.
    private func forget(_ reader: ReaderID) {
        let series = state.withLock { $0.readers.removeValue(forKey: reader) }
        guard let series else { return }
        for meter in series.state.values { meter.destroy() }
        for counter in series.taps.values { counter.destroy() }
    }

    private func count(_ result: ReadResult, on reader: ReaderID) {
        let outcome = TapOutcome(result)
        let tap = state.withLock { state -> CoreMetrics.Counter in
            var series = state.readers[reader] ?? ReaderSeries()
            let tap =
                series.taps[outcome]
                ?? CoreMetrics.Counter(label: Name.taps, dimensions: [("reader", reader.rawValue), ("outcome", outcome.rawValue)], factory: factory)
            series.taps[outcome] = tap
            state.readers[reader] = series
            return tap
        }
        tap.increment()
    }

    private func backendMeter(_ name: String) -> Meter {
        state.withLock { state in
            if let meter = state.backends[name] { return meter }
            let meter = Meter(label: Name.backendUp, dimensions: [("backend", name)], factory: factory)
            state.backends[name] = meter
            return meter
        }
    }

}

extension DaemonMetrics: PublishedEventObserver {
    /// Counts one event the hub published, before any subscriber sees it: a subscriber that sees
    /// an event finds it already counted on `/metrics`.
    public func observe(_ event: PublishedEvent) { observe(event.event.kind, event.event.reader, event.event.payload) }
}
