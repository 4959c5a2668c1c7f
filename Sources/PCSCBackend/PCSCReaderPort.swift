import Logging
import PassTapCore
import Synchronization

/// The ``ReaderPort`` of one PC/SC reader: each open establishes a context of the reader's own
/// thread (`SCardGetStatusChange` holds its context's lock for the whole wait), and waking or
/// stopping hands that context to the ``PCSCCanceller``.
final class PCSCReaderPort: ReaderPort {
    let readerName: String
    private let canceller: PCSCCanceller
    private let logger: Logger
    private let current = Mutex<PCSCContext?>(nil)

    init(readerName: String, canceller: PCSCCanceller, logger: Logger) {
        self.readerName = readerName
        self.canceller = canceller
        self.logger = logger
    }

    func open() throws(ReaderFault) -> any ReaderDriver {
        let context: PCSCContext
        do {
            context = try PCSCContext(logger: logger)
        } catch {
            throw error.readerFault
        }
        current.withLock { $0 = context }
        return PCSCReaderDriver(port: self, context: context, logger: logger)
    }

    /// The driver let go of its context.
    func detach(_ context: PCSCContext) {
        current.withLock { if $0 === context { $0 = nil } }
    }

    func wake() {
        if let context = current.withLock({ $0 }) { canceller.cancel(context) }
    }

    func stop() {
        wake()
    }
}
