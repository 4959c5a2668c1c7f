public import Foundation
import Synchronization

/// What `status` reports beyond the readers themselves, kept from the daemon's own events: each
/// backend's last `backend.up` / `backend.down`, and each present reader's last tap (when, and
/// its ``TapOutcome``; never the card's data).
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
    }

    private let state: Mutex<State>
    private let clock: @Sendable () -> Date

    /// A ledger for the backends the configuration runs (their state unknown until they report).
    public init(backends: [String], clock: @escaping @Sendable () -> Date = { Date() }) {
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
            let tap = LastTap(reader: reader, time: clock(), outcome: TapOutcome(result))
            state.withLock { $0.lastTaps[reader] = tap }
        case (.readerRemoved, _):
            guard let reader else { return }
            _ = state.withLock { $0.lastTaps.removeValue(forKey: reader) }
        default:
            break
        }
    }

    /// Every backend, by name.
    public var backends: [Backend] { state.withLock { $0.backends.values.sorted { $0.name < $1.name } } }

    /// The last tap of every present reader that has had one, by reader id.
    public var lastTaps: [LastTap] { state.withLock { $0.lastTaps.values.sorted { $0.reader.rawValue < $1.reader.rawValue } } }

    /// A sink that notes each event here, then hands it on to `next` (the event hub): a
    /// subscriber that sees an event finds `status` already telling of it.
    public func sink(forwardingTo next: EventSink) -> EventSink {
        EventSink { kind, reader, payload in
            self.observe(kind, reader, payload)
            next.publish(kind, reader, payload)
        }
    }
}
