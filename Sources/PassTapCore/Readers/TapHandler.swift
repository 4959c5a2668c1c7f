/// What a backend calls when a card arrives on one of its readers.
///
/// The backend publishes `card.inserted` first, then calls ``handleTap(reader:card:channel:)``
/// on the reader's own thread (it blocks while the session talks to the card), then serves queued
/// socket requests until the card leaves, then publishes `card.removed`.
public protocol TapHandler: Sendable {
    /// Runs the tap's session over `channel` and publishes its `read.result`.
    /// Returns the result (also published) for the backend's own logging.
    @discardableResult
    func handleTap(reader: ReaderID, card: CardInfo, channel: any CardChannel) -> ReadResult
}
