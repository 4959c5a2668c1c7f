/// One exchange of raw bytes with the card in a reader: a command APDU out, a response APDU
/// (data and the two status bytes) back.
///
/// Implementations block the calling thread. The session engine only ever runs on a reader's own
/// thread, never on Swift's cooperative pool. Chaining (`61xx`, `6Cxx`) is not done here: see
/// ``APDUTransmitter``.
public protocol CardChannel: AnyObject {
    /// What one exchange can carry. The session engine refuses a longer command before sending it,
    /// and a longer answer is the card's fault (`response_too_long`).
    var capacity: ChannelCapacity { get }

    /// Sends `command` and returns the card's whole answer, status word included.
    /// - Throws: ``CardTransportError`` when the card or the reader cannot answer.
    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8]
}
