import CoreMetrics
import Metrics
public import PassTapCore
public import Prometheus
import Synchronization
import VAS
import VASSettings

/// The daemon's Prometheus metrics, derived from its own events (``observe(_:_:_:)``), the tap
/// coordinator's timings (``sessionObserver``) and the socket server's clients.
///
/// Every series lives in the ``registry`` given at creation (the daemon makes its own; tests each
/// make one), through swift-metrics' API and swift-prometheus' factory: nothing here is global.
/// Labels are bounded: a reader id (what the reader stack names, gone with the reader), a
/// configured merchant's pass type id or `other`, and fixed words; never a UID, a payload, a
/// message or a client. See docs/operations.md, "Metrics", for the list.
public final class DaemonMetrics: ConfigurationObserver {
    /// The metric names, as scraped.
    public enum Name {
        public static let taps = "passtap_taps_total"
        public static let vasReads = "passtap_vas_reads_total"
        public static let sessionDuration = "passtap_session_duration_seconds"
        public static let apduRoundTrip = "passtap_apdu_round_trip_seconds"
        public static let clients = "passtap_clients_connected"
        public static let webClients = "passtap_web_clients_connected"
        public static let webAuthFailures = "passtap_web_auth_failures_total"
        public static let eventsDropped = "passtap_events_dropped_total"
        public static let backendUp = "passtap_backend_up"
        public static let readerState = "passtap_reader_state"
        public static let reloads = "passtap_config_reloads_total"
        public static let buildInfo = "passtap_build_info"
        public static let forwardPending = "passtap_forward_pending"
        public static let forwardOldestPendingAge = "passtap_forward_oldest_pending_age_seconds"
        public static let forwardDelivered = "passtap_forward_delivered_total"
        public static let forwardRetries = "passtap_forward_retries_total"
        public static let forwardDead = "passtap_forward_dead_total"
        public static let forwardDropped = "passtap_forward_dropped_total"
        public static let forwardLatency = "passtap_forward_delivery_latency_seconds"
    }

    /// The `merchant` label of a pass type id that is not configured.
    public static let otherMerchant = "other"

    /// The event kinds (of the config reloader) counted by ``Name/reloads``, by their wire names,
    /// and the `outcome` label each gives.
    static let reloadOutcomes = ["config.reloaded": "applied", "config.rejected": "rejected"]

    /// Session duration buckets: a VAS tap takes some tens of milliseconds, the default budget
    /// is 2 s.
    static let sessionBuckets: [Duration] = [5, 10, 25, 50, 100, 250, 500, 1000, 2000, 5000].map { .milliseconds($0) }
    /// APDU round trip buckets: a contactless exchange is about a millisecond to some tens.
    static let roundTripBuckets: [Duration] = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000].map { .microseconds($0 * 1000) }
    /// Forwarding latency buckets, publication to delivery: some milliseconds when the receiver
    /// is up, up to hours across an outage.
    static let forwardLatencyBuckets: [Duration] =
        [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600].map { .milliseconds(Int64($0 * 1000)) }

    private struct ReaderSeries {
        var state: [ReaderInfo.State: Meter] = [:]
        var taps: [TapOutcome: CoreMetrics.Counter] = [:]
    }

    private struct VASKey: Hashable {
        var merchant: String
        var status: String
    }

    private struct State {
        /// The configured merchants' pass type ids: the `merchant` labels other than `other`.
        var merchants: Set<String>
        var readers: [ReaderID: ReaderSeries] = [:]
        var vas: [VASKey: CoreMetrics.Counter] = [:]
        var backends: [String: Meter] = [:]
    }

    /// Where every series is registered; `GET /metrics` emits it.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let state: Mutex<State>
    private let sessionDuration: CoreMetrics.Timer
    private let roundTrip: CoreMetrics.Timer
    private let clients: Meter
    private let webClients: Meter
    private let dropped: CoreMetrics.Counter
    private let buildInfo: Meter
    /// The forwarder's series (``ForwardMetricsObserver``).
    let forward: ForwardSeries
    /// Reload outcomes, auth failure reasons, and the forwarder's counters.
    private let labelled: LabelledCounters

    /// Metrics in `registry`, labelling VAS reads by the pass type ids of `merchants` (others
    /// are `other`; a reload sets the list, ``configurationChanged(from:to:)``), with `version` in
    /// `passtap_build_info`.
    public init(registry: PrometheusCollectorRegistry, merchants: [String], version: String) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            Name.sessionDuration: Self.sessionBuckets, Name.apduRoundTrip: Self.roundTripBuckets, Name.forwardLatency: Self.forwardLatencyBuckets,
        ]
        self.factory = factory
        labelled = LabelledCounters(factory: factory)
        forward = ForwardSeries(factory: factory, counters: labelled)
        state = Mutex(State(merchants: Set(merchants)))
        sessionDuration = CoreMetrics.Timer(label: Name.sessionDuration, dimensions: [], factory: factory)
        roundTrip = CoreMetrics.Timer(label: Name.apduRoundTrip, dimensions: [], factory: factory)
        clients = Meter(label: Name.clients, dimensions: [], factory: factory)
        clients.set(0)
        webClients = Meter(label: Name.webClients, dimensions: [], factory: factory)
        webClients.set(0)
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
            sessionFinished: { [sessionDuration] _, duration in sessionDuration.recordNanoseconds(Self.nanoseconds(duration)) },
            roundTrip: { [roundTrip] _, duration in roundTrip.recordNanoseconds(Self.nanoseconds(duration)) })
    }

    /// A socket client was admitted (`+1`) or left (`-1`).
    public func clientsChanged(by delta: Int) {
        if delta >= 0 { clients.increment(by: Double(delta)) } else { clients.decrement(by: Double(-delta)) }
    }

    /// A `/rpc` client authenticated (`+1`) or an authenticated one left (`-1`).
    public func webClientsChanged(by delta: Int) {
        if delta >= 0 { webClients.increment(by: Double(delta)) } else { webClients.decrement(by: Double(-delta)) }
    }

    /// A `/rpc` `auth` failed, answered with `reason` (`auth_failed` or `auth_rate_limited`).
    public func webAuthFailed(reason: String) {
        labelled.counter(Name.webAuthFailures, ("reason", reason)).increment()
    }

    /// A subscriber was told it missed `count` events (`events.dropped`).
    public func eventsDropped(_ count: UInt64) {
        dropped.increment(by: Int64(clamping: count))
    }

    /// A configuration reload ended with `outcome` (`applied` or `rejected`).
    public func recordReload(outcome: String) {
        labelled.counter(Name.reloads, ("outcome", outcome)).increment()
    }

    /// A reload: VAS reads are labelled by the merchants of `new` from now on. Series already
    /// counted keep their labels (a merchant the reload removed keeps its counts until a restart).
    public func configurationChanged(from old: Configuration, to new: Configuration) {
        let merchants = Set(new.vas.passTypeIDs)
        state.withLock { $0.merchants = merchants }
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
        let entries = result.vas?.entries ?? []
        let counters = state.withLock { state -> [CoreMetrics.Counter] in
            var series = state.readers[reader] ?? ReaderSeries()
            let tap =
                series.taps[outcome]
                ?? CoreMetrics.Counter(label: Name.taps, dimensions: [("reader", reader.rawValue), ("outcome", outcome.rawValue)], factory: factory)
            series.taps[outcome] = tap
            state.readers[reader] = series
            var counters = [tap]
            for entry in entries {
                let key = VASKey(merchant: state.merchants.contains(entry.passTypeID) ? entry.passTypeID : Self.otherMerchant, status: entry.status.rawValue)
                let counter =
                    state.vas[key] ?? CoreMetrics.Counter(label: Name.vasReads, dimensions: [("merchant", key.merchant), ("status", key.status)], factory: factory)
                state.vas[key] = counter
                counters.append(counter)
            }
            return counters
        }
        for counter in counters { counter.increment() }
    }

    private func backendMeter(_ name: String) -> Meter {
        state.withLock { state in
            if let meter = state.backends[name] { return meter }
            let meter = Meter(label: Name.backendUp, dimensions: [("backend", name)], factory: factory)
            state.backends[name] = meter
            return meter
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension DaemonMetrics: PublishedEventObserver {
    /// Counts one event the hub published, before any subscriber sees it: a subscriber that sees
    /// an event finds it already counted on `/metrics`.
    public func observe(_ event: PublishedEvent) { observe(event.event.kind, event.event.reader, event.event.payload) }
}
