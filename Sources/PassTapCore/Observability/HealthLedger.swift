public import Foundation
import Synchronization

/// What `status` reports beyond the readers themselves, kept from the daemon's own events: each
/// backend's last `backend.up` / `backend.down`, each present reader's last tap (when, and
/// its ``TapOutcome``; never the card's data), and each present reader's taps by outcome
/// (``TapCounts``, which `readers.list` shows too).
///
/// A reader's entries go with its `reader.removed`: a reader that comes back counts from zero, as
/// its `passtap_taps_total` series do, and the ledger never grows with readers that left.
public final class HealthLedger: Sendable {
    /// A backend as its last event left it.
    public struct Backend: Sendable, Hashable {
        /// `pcsc` or `nfc`.
        public var name: String
        /// `true` after `backend.up`, `false` after `backend.down`, `nil` before either.
        public var up: Bool?
        /// Why it is down (`backend.down`'s reason).
        public var reason: String?

        /// Creates a backend entry.
        public init(name: String, up: Bool?, reason: String?) {
            self.name = name
            self.up = up
            self.reason = reason
        }
    }

    /// A reader's last tap.
    public struct LastTap: Sendable, Hashable {
        /// The reader.
        public var reader: ReaderID
        /// When its `read.result` was published.
        public var time: Date
        /// What it came to.
        public var outcome: TapOutcome

        /// Creates an entry.
        public init(reader: ReaderID, time: Date, outcome: TapOutcome) {
            self.reader = reader
            self.time = time
            self.outcome = outcome
        }
    }

    private struct State {
        var backends: [String: Backend]
        var lastTaps: [ReaderID: LastTap] = [:]
        var taps: [ReaderID: TapCounts] = [:]
    }

    private let state: Mutex<State>
    private let clock: DaemonClock

    /// A ledger for the backends the configuration runs (their state unknown until they report).
    public init(backends: [String], clock: DaemonClock = .system) {
        state = Mutex(State(backends: Dictionary(backends.map { ($0, Backend(name: $0, up: nil, reason: nil)) }, uniquingKeysWith: { a, _ in a })))
        self.clock = clock
    }

    /// Takes note of one event.
    public func observe(_ kind: EventKind, _ reader: ReaderID?, _ payload: EventPayload) {
        switch (kind, payload) {
        case (.backendUp, .backend(let name, _)):
            state.withLock { $0.backends[name] = Backend(name: name, up: true, reason: nil) }
        case (.backendDown, .backend(let name, let reason)):
            state.withLock { $0.backends[name] = Backend(name: name, up: false, reason: reason) }
        case (.readResult, .readResult(let result)):
            guard let reader else { return }
            let tap = LastTap(reader: reader, time: clock.date, outcome: TapOutcome(result))
            state.withLock { state in
                state.lastTaps[reader] = tap
                state.taps[reader, default: TapCounts()][tap.outcome] += 1
            }
        case (.readerRemoved, _):
            guard let reader else { return }
            state.withLock { state in
                state.lastTaps.removeValue(forKey: reader)
                state.taps.removeValue(forKey: reader)
            }
        default:
            break
        }
    }

    /// Every backend, by name.
    public var backends: [Backend] { state.withLock { $0.backends.values.sorted { $0.name < $1.name } } }

    /// The last tap of every present reader that has had one, by reader id.
    public var lastTaps: [LastTap] { state.withLock { $0.lastTaps.values.sorted { $0.reader.rawValue < $1.reader.rawValue } } }

    /// The taps of `reader` since it appeared (all zero before its first).
    public func taps(of reader: ReaderID) -> TapCounts {
        state.withLock { $0.taps[reader] ?? TapCounts() }
    }

    /// `readers` with each one's ``ReaderInfo/taps`` filled in, as `readers.list` and `status`
    /// report them.
    public func counting(_ readers: [ReaderInfo]) -> [ReaderInfo] {
        let taps = state.withLock { $0.taps }
        return readers.map { reader in
            var reader = reader
            reader.taps = taps[reader.id] ?? TapCounts()
            return reader
        }
    }
}

extension HealthLedger: PublishedEventObserver {
    /// Takes note of one event the hub published, before any subscriber sees it: a subscriber
    /// that sees an event finds `status` already telling of it.
    public func observe(_ event: PublishedEvent) { observe(event.event.kind, event.event.reader, event.event.payload) }
}
