public import ISO7816
public import Logging
public import PassTapCore

/// Readers driven through pcsc-lite (pcscd): ACR122U, ACR1252U, Identiv, HID Omnikey, and the
/// vsmartcard-vpcd virtual reader used by the tests and the demo.
///
/// Every pcsc-lite call runs on a thread this backend owns: the discovery thread (`pcsc-monitor`,
/// ``PCSCDiscovery``), one thread per reader (each with its own context, running the shared
/// ``ReaderLifecycle``; the ``ReaderRegistry`` starts and stops them), and one thread that makes
/// the `SCardCancel` calls. Nothing here blocks a Swift task's thread.
public final class PCSCReaderBackend: ReaderBackend {
    public let name = ReaderID.Backend.pcsc

    /// pcsc-lite's transfers have no timeout of their own: the CCID driver waits as long as the
    /// card asks for more time. 5 s covers a slow phone; a thread past it is stuck.
    public static let transportTimeout = Duration.seconds(5)

    private let readerTable: ReaderRegistry
    private let discovery: PCSCDiscovery
    private let canceller = PCSCCanceller()

    /// Creates the backend; nothing runs until ``start()``.
    /// - Parameters:
    ///   - configuration: `[pcsc]` (which readers to use).
    ///   - tapHandler: called on a reader's thread for every card that arrives.
    ///   - transmitter: the chaining and caps used for `card.transmit`.
    ///   - events: where the backend's and its readers' events go (the event hub).
    ///   - backoff: pauses before reopening a reader that failed.
    public init(
        configuration: Configuration.BackendSection, tapHandler: any TapHandler, transmitter: APDUTransmitter = APDUTransmitter(),
        events: EventSink, backoff: ReaderLifecycle.Backoff = .standard, logger: Logger
    ) {
        readerTable = ReaderRegistry(
            backend: .pcsc, transportTimeout: Self.transportTimeout, tapHandler: tapHandler, transmitter: transmitter, events: events,
            backoff: backoff, logger: logger)
        discovery = PCSCDiscovery(configuration: configuration, canceller: canceller, logger: logger)
    }

    /// Starts the canceller and discovery threads.
    public func start() {
        let canceller = self.canceller
        readerTable.spawn(name: "pcsc-cancel") { canceller.run() }
        readerTable.start(discovery)
    }

    public func shutdown(deadline: Duration = .milliseconds(1000)) async {
        // The readers' and the discovery's stops hand their contexts to the canceller first.
        readerTable.stop()
        canceller.finish()
        await readerTable.shutdown(deadline: deadline)
    }

    public var registry: ReaderRegistry? { readerTable }

    public func readers() -> [ReaderInfo] { readerTable.readers() }

    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        try await readerTable.transmit(apdu, raw: raw, on: reader)
    }
}
