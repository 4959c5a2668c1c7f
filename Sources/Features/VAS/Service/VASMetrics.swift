public import CoreMetrics
public import PassTapCore
import Synchronization
import VAS
import VASSettings

/// VAS's Prometheus series (docs/operations.md, "Metrics"), made through swift-metrics on the
/// factory the metrics slice lends: `passtap_vas_reads_total`, one count per merchant entry of
/// each published `read.result`, labelled by the configured merchant's pass type id (or `other`)
/// and the entry's status. Labels stay bounded: a reload sets the merchants that get their own
/// label (``configurationChanged(from:to:)``); series already counted keep theirs (a merchant the
/// reload removed keeps its counts until a restart).
public final class VASMetrics: PublishedEventObserver, ConfigurationObserver, Sendable {
    /// The series' names.
    public enum Name {
        public static let vasReads = "passtap_vas_reads_total"
    }

    /// The `merchant` label of a pass type id that is not configured.
    public static let otherMerchant = "other"

    private struct Key: Hashable {
        var merchant: String
        var status: String
    }

    private struct State {
        /// The configured merchants' pass type ids: the `merchant` labels other than `other`.
        var merchants: Set<String>
        var counters: [Key: CoreMetrics.Counter] = [:]
    }

    private let factory: any MetricsFactory
    private let state: Mutex<State>

    /// Series made by `factory`, labelling reads by the pass type ids of `merchants`.
    public init(factory: any MetricsFactory, merchants: [String]) {
        self.factory = factory
        state = Mutex(State(merchants: Set(merchants)))
    }

    /// Counts a `read.result`'s VAS entries, before any subscriber sees it.
    public func observe(_ event: PublishedEvent) { observe(event.event.kind, event.event.reader, event.event.payload) }

    /// Counts the VAS entries of a `read.result`; other events count nothing.
    public func observe(_ kind: EventKind, _ reader: ReaderID?, _ payload: EventPayload) {
        guard kind == .readResult, case .readResult(let result) = payload, let entries = result.vas?.entries, !entries.isEmpty else { return }
        let counters = state.withLock { state in
            entries.map { entry in
                let key = Key(
                    merchant: state.merchants.contains(entry.passTypeID) ? entry.passTypeID : Self.otherMerchant, status: entry.status.rawValue)
                let counter =
                    state.counters[key]
                    ?? CoreMetrics.Counter(label: Name.vasReads, dimensions: [("merchant", key.merchant), ("status", key.status)], factory: factory)
                state.counters[key] = counter
                return counter
            }
        }
        for counter in counters { counter.increment() }
    }

    /// A reload: VAS reads are labelled by the merchants of `new` from now on.
    public func configurationChanged(from old: Configuration, to new: Configuration) {
        let merchants = Set(new.vas.passTypeIDs)
        state.withLock { $0.merchants = merchants }
    }
}
