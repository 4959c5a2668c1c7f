public import ISO7816
public import Logging
public import PassTapCore

/// Readers driven through pcsc-lite (pcscd): ACR122U, ACR1252U, Identiv, HID Omnikey, and the
/// vsmartcard-vpcd virtual reader used by the tests and the demo.
///
/// Every pcsc-lite call runs on a thread this backend owns: one monitor thread, one thread per
/// reader (each with its own context, running the shared ``ReaderLifecycle``), and one thread
/// that makes the `SCardCancel` calls. Nothing here blocks a Swift task's thread.
public final class PCSCReaderBackend: ReaderBackend {
    public let name = ReaderID.Backend.pcsc

    private let monitor: PCSCMonitor
    private let canceller = PCSCCanceller()
    private let threads = ReaderThreads()
    private let logger: Logger

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
        self.logger = logger
        monitor = PCSCMonitor(configuration: configuration, canceller: canceller, threads: threads, events: events, logger: logger) { slot, port in
            ReaderLifecycle(
                slot: slot, port: port, tapHandler: tapHandler, transmitter: transmitter, events: events, backoff: backoff, logger: logger)
        }
    }

    /// Starts the monitor and canceller threads.
    public func start() {
        let monitor = self.monitor
        let canceller = self.canceller
        threads.spawn(name: "pcsc-cancel") { canceller.run() }
        threads.spawn(name: "pcsc-monitor") { monitor.run() }
    }

    public func shutdown(deadline: Duration = .milliseconds(1000)) async {
        monitor.stop()
        canceller.finish()
        if !(await threads.allExited(within: deadline)) {
            logger.warning(
                "PC/SC threads still busy at the shutdown deadline (a card that never answers); leaving them",
                metadata: ["pcsc.live_threads": "\(threads.liveCount)"])
        }
    }

    public func readers() -> [ReaderInfo] {
        monitor.slots.map(\.info).sorted { $0.id < $1.id }
    }

    public func supervisedSlots() -> [ReaderSlot] { monitor.slots }

    public func restart(_ slot: ReaderSlot, because reason: String) -> Bool {
        monitor.restart(slot, because: reason)
    }

    /// pcsc-lite's transfers have no timeout of their own: the CCID driver waits as long as the
    /// card asks for more time. 5 s covers a slow phone; a thread past it is stuck.
    public var transportTimeout: Duration { .seconds(5) }

    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        guard let slot = monitor.slot(for: reader) else { throw .unknownReader(reader) }
        return try await slot.transmit(apdu, raw: raw)
    }
}
