public import ISO7816

/// A family of readers driven through one library (pcsc-lite now, libnfc later), as the socket
/// server sees it.
///
/// Implementations own their threads; every method here is safe to call from any task and never
/// blocks the caller's thread on the reader stack.
public protocol ReaderBackend: AnyObject, Sendable {
    /// The backend's short name, as in reader ids and events: `pcsc`.
    var name: String { get }

    /// A snapshot of the readers this backend knows, with their state.
    func readers() -> [ReaderInfo]

    /// Sends one APDU to the card on `reader`, queued behind any session or earlier request on
    /// that reader. Unless `raw`, `61xx` and `6Cxx` are followed (see `APDUTransmitter`).
    func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU
}
