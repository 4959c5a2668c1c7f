/// What the reader lifecycle calls when a card arrives on one of its readers.
///
/// The lifecycle publishes `card.inserted` first, then calls ``handleTap(reader:tap:)`` on the
/// reader's own thread (it blocks while the session talks to the card), then serves queued
/// socket requests until the card leaves, then publishes `card.removed`.
public protocol TapHandler: Sendable {
    /// Runs the tap's session over the tap's channel (an ISO-DEP card) or records the card's
    /// identity alone (a memory card), and publishes its `read.result`.
    func handleTap(reader: ReaderID, tap: Tap)
    /// The reader just opened on its thread (at start, after a replug, after a fault), before its
    /// first wait for a card; `control` is its control channel, if the backend has one.
    func readerOpened(reader: ReaderID, control: (any ReaderControl)?)
}

extension TapHandler {
    /// Nothing to do when a reader opens.
    public func readerOpened(reader: ReaderID, control: (any ReaderControl)?) {}
}
