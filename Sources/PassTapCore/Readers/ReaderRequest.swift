import ISO7816
import Synchronization

/// A `card.transmit` waiting for its reader's thread.
struct ReaderRequest: Sendable {
    let id: UInt64
    let command: CommandAPDU
    let raw: Bool
    let reply: Reply

    /// The caller's continuation, resumed once: by the reader's thread with the card's answer, or
    /// earlier with an error when the caller is cancelled or the reader stops (a thread stuck in
    /// a transfer to a card that never answers must not hold its caller).
    final class Reply: Sendable {
        private let continuation: Mutex<CheckedContinuation<Result<ResponseAPDU, ReaderCommandError>, Never>?>

        init(_ continuation: CheckedContinuation<Result<ResponseAPDU, ReaderCommandError>, Never>) {
            self.continuation = Mutex(continuation)
        }

        /// Answers the caller, unless it was answered already.
        func resume(returning result: Result<ResponseAPDU, ReaderCommandError>) {
            let waiting = continuation.withLock { stored in
                defer { stored = nil }
                return stored
            }
            waiting?.resume(returning: result)
        }
    }
}
