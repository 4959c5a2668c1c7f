import Logging
import PassTapCore
import Synchronization

/// How the PC/SC backend finds its readers: keeps a context to pcscd (reconnecting with backoff
/// when it goes away: `backend.down`, then `backend.up` once it answers again), and hands the
/// ``ReaderRegistry`` the readers pcscd lists that `[pcsc] readers` accepts, again at every change
/// `\\?PnP?\Notification` reports (or every wait slice).
final class PCSCDiscovery: ReaderDiscovery {
    /// Backoff between reconnection attempts: doubles from the first to the last value.
    static let backoff: (first: Double, last: Double) = (0.1, 5.0)

    private let configuration: Configuration.BackendSection
    private let canceller: PCSCCanceller
    private let logger: Logger
    /// The context of the PnP wait, for ``stop()``.
    private let context = Mutex<PCSCContext?>(nil)

    init(configuration: Configuration.BackendSection, canceller: PCSCCanceller, logger: Logger) {
        self.configuration = configuration
        self.canceller = canceller
        self.logger = logger
    }

    /// Ends the PnP wait (through the canceller: `SCardCancel` is a round trip to pcscd).
    func stop() {
        if let context = context.withLock({ $0 }) { canceller.cancel(context) }
    }

    /// The readers to drive among those pcscd lists.
    func entries(_ names: [String]) -> [ReaderEntry] {
        names.filter(configuration.accepts(readerName:)).map { name in
            ReaderEntry(id: .pcsc(name), address: name) { [canceller, logger] in
                PCSCReaderPort(readerName: name, canceller: canceller, logger: logger)
            }
        }
    }

    func run(in registry: ReaderRegistry) {
        var delay = Self.backoff.first
        while !registry.isStopping {
            let context: PCSCContext
            do {
                context = try PCSCContext(logger: logger)
            } catch {
                if registry.backendDown(reason: error.message) {
                    logger.warning("pcscd is not reachable; retrying with backoff", metadata: ["error": "\(error)"])
                }
                registry.pause(for: .seconds(delay))
                delay = min(delay * 2, Self.backoff.last)
                continue
            }
            delay = Self.backoff.first
            self.context.withLock { $0 = context }
            // A stop that came before the context was noted could not cancel its wait.
            guard !registry.isStopping else {
                self.context.withLock { $0 = nil }
                context.release()
                break
            }
            if registry.backendUp() { logger.info("pcscd is reachable") }
            let reason = watchReaders(context, registry)
            self.context.withLock { $0 = nil }
            context.release()
            registry.removeAll(because: "pcscd went away")
            if let reason, !registry.isStopping {
                logger.warning("pcscd went away; reconnecting", metadata: ["error": "\(reason)"])
                registry.backendDown(reason: reason.message)
                registry.pause(for: .seconds(delay))
            }
        }
    }

    /// Follows readers until pcscd goes away (returns why) or the registry stops (returns nil).
    private func watchReaders(_ context: PCSCContext, _ registry: ReaderRegistry) -> PCSCError? {
        while !registry.isStopping {
            let names: [String]
            do {
                names = try context.readerNames()
            } catch {
                if error.meansServiceGone { return error }
                logger.warning("Cannot list readers", metadata: ["error": "\(error)"])
                registry.pause(for: .seconds(Self.backoff.last))
                continue
            }
            registry.reconcile(entries(names))
            // pcsc-lite's convention: the reader count in the top 16 bits of the known state.
            let known = ReaderWatch(name: PCSCContext.plugAndPlayReader, state: UInt32(names.count) << 16)
            do {
                _ = try context.waitForChange([known], timeoutMilliseconds: PCSCReaderDriver.waitSliceMilliseconds)
            } catch where error.code == .timeout || error.code == .cancelled {
                continue
            } catch {
                if error.meansServiceGone { return error }
                logger.warning("Reader watch failed", metadata: ["error": "\(error)"])
                registry.pause(for: .seconds(Self.backoff.last))
            }
        }
        return nil
    }
}
