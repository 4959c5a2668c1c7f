public import ISO7816

/// Every backend of the daemon behind one front: requests go to the backend a reader id names.
///
/// The socket server and the daemon's service talk to this composite, never to one backend.
public final class ReaderBackends: Sendable {
    /// The backends, in the order given (start order; shutdown runs them together).
    public let backends: [any ReaderBackend]

    /// Groups `backends`; their names must differ.
    public init(_ backends: [any ReaderBackend]) {
        precondition(Set(backends.map(\.name)).count == backends.count, "two reader backends share a name")
        self.backends = backends
    }

    /// Starts every backend.
    public func start() {
        backends.forEach { $0.start() }
    }

    /// Stops every backend at once, each within `deadline`.
    public func shutdown(deadline: Duration) async {
        await withDiscardingTaskGroup { group in
            for backend in backends {
                group.addTask { await backend.shutdown(deadline: deadline) }
            }
        }
    }

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

    private func backend(for reader: ReaderID) -> (any ReaderBackend)? {
        backends.first { $0.name == reader.backend }
    }
}
