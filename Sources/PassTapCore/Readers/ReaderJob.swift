import Synchronization

/// A feature's work waiting for a reader's thread (``ReaderSlot/perform(_:)``): the POS's
/// verdict played on the reader (`feedback.signal`). Unlike a `card.transmit`, it needs no card:
/// the thread runs it between sessions too, with the reader's control channel.
struct ReaderJob: Sendable {
    /// Runs the work on the reader's thread and answers the caller.
    let run: @Sendable (ReaderAccess) -> Void
    /// Answers the caller with an error instead (the reader stopped or failed).
    let fail: @Sendable (ReaderCommandError) -> Void

    /// A job running `work` and answering through `continuation`, once.
    init<T: Sendable>(_ work: @escaping @Sendable (ReaderAccess) -> T, continuation: CheckedContinuation<Result<T, ReaderCommandError>, Never>) {
        let waiting = Mutex<CheckedContinuation<Result<T, ReaderCommandError>, Never>?>(continuation)
        let answer: @Sendable (Result<T, ReaderCommandError>) -> Void = { result in
            let continuation = waiting.withLock { stored in
                defer { stored = nil }
                return stored
            }
            continuation?.resume(returning: result)
        }
        run = { access in answer(.success(work(access))) }
        fail = { error in answer(.failure(error)) }
    }
}
