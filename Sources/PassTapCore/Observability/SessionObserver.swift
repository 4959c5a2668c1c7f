/// Where the tap coordinator reports what it measures while a session runs: the session's
/// duration and each APDU round trip. The metrics recorder is one; with none, the coordinator still
/// times the session (for `read.result`'s `duration_ms`) but not the round trips.
///
/// Both calls come from a reader's own thread, once per session and once per exchange; they must
/// be quick and must not block.
public struct SessionObserver: Sendable {
    /// A session on `reader` took `duration`, from the plan's start to its outcome.
    public var sessionFinished: @Sendable (_ reader: ReaderID, _ duration: Duration) -> Void
    /// One command APDU out and its answer back (or its failure) took `duration`.
    public var roundTrip: @Sendable (_ reader: ReaderID, _ duration: Duration) -> Void

    /// An observer of both measurements.
    public init(
        sessionFinished: @escaping @Sendable (_ reader: ReaderID, _ duration: Duration) -> Void,
        roundTrip: @escaping @Sendable (_ reader: ReaderID, _ duration: Duration) -> Void
    ) {
        self.sessionFinished = sessionFinished
        self.roundTrip = roundTrip
    }
}

/// A card channel that times each exchange on the coordinator's clock and reports it.
final class TimedCardChannel: CardChannel {
    private let inner: any CardChannel
    private let reader: ReaderID
    private let observer: SessionObserver
    private let clock: DaemonClock

    init(_ inner: any CardChannel, reader: ReaderID, observer: SessionObserver, clock: DaemonClock) {
        self.inner = inner
        self.reader = reader
        self.observer = observer
        self.clock = clock
    }

    var capacity: ChannelCapacity { inner.capacity }

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        let start = clock.now
        defer { observer.roundTrip(reader, clock.now - start) }
        return try inner.transmit(command)
    }
}
