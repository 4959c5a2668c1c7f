public import ISO7816
import Synchronization

/// Every backend of the daemon behind one front: requests go to the backend a reader id names.
///
/// The socket server and the daemon's service talk to this composite, never to one backend. A
/// reload may add, remove or restart a backend (``replace(_:with:deadline:)``); requests always go
/// to the backend in place at the time.
public final class ReaderBackends: Sendable {
    private struct State {
        var backends: [any ReaderBackend]
        var started = false
        var stopped = false
    }

    private let state: Mutex<State>

    /// The backends now, in start order (shutdown runs them together).
    public var backends: [any ReaderBackend] { state.withLock { $0.backends } }

    /// Groups `backends`; their names must differ.
    public init(_ backends: [any ReaderBackend]) {
        precondition(Set(backends.map(\.name)).count == backends.count, "two reader backends share a name")
        state = Mutex(State(backends: backends))
    }

    /// Starts every backend.
    public func start() {
        let backends = state.withLock { state in
            state.started = true
            return state.backends
        }
        backends.forEach { $0.start() }
    }

    /// Stops every backend at once, each within `deadline`; a later ``replace(_:with:deadline:)``
    /// starts nothing.
    public func shutdown(deadline: Duration) async {
        let backends = state.withLock { state in
            state.stopped = true
            return state.backends
        }
        await withDiscardingTaskGroup { group in
            for backend in backends {
                group.addTask { await backend.shutdown(deadline: deadline) }
            }
        }
    }

    /// Puts `new` in the place of the backend named `name` (a reload): the old one, if any, is
    /// shut down first (its readers publish `reader.removed`), within `deadline`; then `new`, if
    /// any, is started (its readers publish `reader.added` as they are found). `nil` removes the
    /// backend. Nothing is started once ``shutdown(deadline:)`` began. Call one at a time.
    public func replace(_ name: ReaderID.Backend, with new: (any ReaderBackend)?, deadline: Duration) async {
        precondition(new.map { $0.name == name } ?? true, "a backend replaces one of its own name")
        let old = state.withLock { state -> (any ReaderBackend)? in
            guard let index = state.backends.firstIndex(where: { $0.name == name }) else { return nil }
            return state.backends.remove(at: index)
        }
        if let old { await old.shutdown(deadline: deadline) }
        guard let new else { return }
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.backends.append(new)
            return state.started
        }
        if start { new.start() }
    }

    /// The reader tables of the backends now, for the ``ReaderSupervisor``.
    public var registries: [ReaderRegistry] { backends.compactMap(\.registry) }

    /// Every reader of every backend, sorted by id.
    public func readers() -> [ReaderInfo] {
        backends.flatMap { $0.readers() }.sorted { $0.id < $1.id }
    }

    /// Whether some backend knows `reader` now.
    public func knows(_ reader: ReaderID) -> Bool {
        backend(for: reader)?.readers().contains { $0.id == reader } ?? false
    }

    /// Sends one APDU to the card on `reader` through the backend that drives it.
    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        guard let backend = backend(for: reader) else { throw .unknownReader(reader) }
        return try await backend.transmit(apdu, raw: raw, on: reader)
    }

    /// Runs `work` on `reader`'s own thread, card or not (``ReaderSlot/perform(_:)``): a
    /// feature's work with the reader itself. `unknown_reader` for a backend without reader
    /// threads of its own.
    public func perform<T: Sendable>(on reader: ReaderID, _ work: @escaping @Sendable (ReaderAccess) -> T) async throws(ReaderCommandError) -> T {
        guard let registry = backend(for: reader)?.registry else { throw .unknownReader(reader) }
        return try await registry.perform(on: reader, work)
    }

    private func backend(for reader: ReaderID) -> (any ReaderBackend)? {
        state.withLock { $0.backends.first { $0.name == reader.backend } }
    }
}
