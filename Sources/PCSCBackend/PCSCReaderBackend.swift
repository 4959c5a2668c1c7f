public import ISO7816
public import Logging
public import PassTapCore

/// Readers driven through pcsc-lite (pcscd): ACR122U, ACR1252U, Identiv, HID Omnikey, and the
/// vsmartcard-vpcd virtual reader used by the tests and the demo.
///
/// Every pcsc-lite call runs on a thread this backend owns: one monitor thread and one thread per
/// reader, each with its own context. Nothing here blocks a Swift task's thread.
public final class PCSCReaderBackend: ReaderBackend {
    public let name = "pcsc"

    private let monitor: PCSCMonitor
    private let threads = ThreadTracker()
    private let logger: Logger

    /// Creates the backend; nothing runs until ``start()``.
    /// - Parameters:
    ///   - configuration: `[pcsc]` (which readers to use).
    ///   - tapHandler: called on a reader's thread for every card that arrives.
    ///   - engine: the chaining and caps used for `card.transmit`.
    ///   - publish: where events go (the event hub).
    public init(
        configuration: Configuration.PCSC, tapHandler: any TapHandler, engine: SessionEngine = SessionEngine(),
        logger: Logger, publish: @escaping TapCoordinator.Publish
    ) {
        self.logger = logger
        let threads = self.threads
        monitor = PCSCMonitor(configuration: configuration, threads: threads, logger: logger, publish: publish) { slot in
            PCSCReaderLoop(slot: slot, tapHandler: tapHandler, engine: engine, publish: publish, logger: logger)
        }
    }

    /// Starts the monitor thread.
    public func start() {
        let monitor = self.monitor
        threads.spawn(name: "pcsc-monitor") { monitor.run() }
    }

    /// Stops every thread: waits for them, but no longer than `deadline` (a transmit to a card
    /// that never answers cannot be interrupted; such a thread is left to finish on its own).
    public func shutdown(deadline: Duration = .milliseconds(1500)) async {
        monitor.stop()
        let threads = self.threads
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await threads.allExited()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !finished {
            logger.warning(
                "PC/SC threads still busy at the shutdown deadline (a card that never answers); leaving them",
                metadata: ["pcsc.live_threads": "\(threads.liveCount)"])
        }
    }

    public func readers() -> [ReaderInfo] {
        monitor.slots.map(\.info).sorted { $0.id < $1.id }
    }

    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        guard let slot = monitor.slot(for: reader) else { throw .unknownReader(reader) }
        let result = await withCheckedContinuation { continuation in
            slot.enqueue(TransmitRequest(command: apdu, raw: raw, reply: continuation))
        }
        return try result.get()
    }
}
