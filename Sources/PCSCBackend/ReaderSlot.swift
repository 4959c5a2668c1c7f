import ISO7816
import PassTapCore
import Synchronization

/// A `card.transmit` request waiting for its reader's thread.
struct TransmitRequest: Sendable {
    let command: CommandAPDU
    let raw: Bool
    let reply: CheckedContinuation<Result<ResponseAPDU, ReaderCommandError>, Never>
}

/// What a reader's thread and the rest of the daemon share about one reader: its state, its
/// request queue (served in arrival order, between sessions), and how to wake or stop its thread.
final class ReaderSlot: Sendable {
    private struct Shared {
        var state: ReaderInfo.State = .unavailable
        var queue: [TransmitRequest] = []
        var stopping = false
        var context: PCSCContext?
    }

    let id: ReaderID
    let name: String
    private let shared = Mutex(Shared())

    init(name: String) {
        self.name = name
        self.id = .pcsc(name)
    }

    var info: ReaderInfo {
        ReaderInfo(id: id, name: name, backend: "pcsc", state: shared.withLock { $0.state })
    }

    var isStopping: Bool { shared.withLock { $0.stopping } }

    func setState(_ state: ReaderInfo.State) {
        shared.withLock { $0.state = state }
    }

    /// Records the thread's context so ``stop()`` and ``enqueue(_:)`` can wake it. Returns `false`
    /// if the slot is already stopping.
    func attach(_ context: PCSCContext?) -> Bool {
        shared.withLock { shared in
            shared.context = context
            return !shared.stopping
        }
    }

    /// Queues a request for the card and wakes the reader thread; answers it at once with an error
    /// when there is no card, the reader is unavailable, or the backend is stopping.
    func enqueue(_ request: TransmitRequest) {
        let outcome: (accepted: Bool, error: ReaderCommandError?, context: PCSCContext?) = shared.withLock { shared in
            if shared.stopping { return (false, .shuttingDown, nil) }
            switch shared.state {
            case .present:
                shared.queue.append(request)
                return (true, nil, shared.context)
            case .empty:
                return (false, .noCard(id), nil)
            case .unavailable:
                return (false, .readerUnavailable(id), nil)
            }
        }
        if let error = outcome.error {
            request.reply.resume(returning: .failure(error))
        }
        // The one pcsc-lite call made on the caller's thread: SCardCancel does not wait for a
        // card, only asks pcscd to end the reader thread's SCardGetStatusChange, so the request
        // is served at once rather than at the end of the wait slice.
        outcome.context?.cancel()
    }

    /// The requests queued so far, oldest first; the queue is emptied.
    func takeRequests() -> [TransmitRequest] {
        shared.withLock { shared in
            defer { shared.queue.removeAll() }
            return shared.queue
        }
    }

    /// Answers every queued request with `error`.
    func failPending(_ error: ReaderCommandError) {
        for request in takeRequests() {
            request.reply.resume(returning: .failure(error))
        }
    }

    /// Asks the thread to end and wakes it.
    func stop() {
        let context = shared.withLock { shared in
            shared.stopping = true
            return shared.context
        }
        context?.cancel()
    }
}
