public import ISO7816

/// A family of readers driven through one library (pcsc-lite, libnfc), as the daemon sees it.
///
/// Implementations own their threads; every method here is safe to call from any task and never
/// blocks the caller's thread on the reader stack.
public protocol ReaderBackend: AnyObject, Sendable {
    /// The backend's short name, as in reader ids and events.
    var name: ReaderID.Backend { get }

    /// Starts the backend's threads; readers and events follow as they are found.
    func start()

    /// Stops every reader: queued requests are answered `shuttingDown` at once, cards in the field
    /// are released, and the backend's threads are waited for, but no longer than `deadline` (a
    /// thread stuck in a transfer to a card that never answers is left to end on its own).
    func shutdown(deadline: Duration) async

    /// A snapshot of the readers this backend knows, with their state.
    func readers() -> [ReaderInfo]

    /// Sends one APDU to the card on `reader`, queued behind any session or earlier request on
    /// that reader. Unless `raw`, `61xx` and `6Cxx` are followed (see `APDUTransmitter`). A task
    /// cancelled while its request waits takes the request out of the queue at once.
    func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU

    /// The table of this backend's readers and their threads, for the ``ReaderSupervisor``;
    /// `nil` for a backend without readers of its own threads (a test's).
    var registry: ReaderRegistry? { get }
}

extension ReaderBackend {
    /// None: a backend without readers of its own threads (a test's) is not supervised.
    public var registry: ReaderRegistry? { nil }
}
