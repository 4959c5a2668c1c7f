import Synchronization

/// Lets callers wait until the ``SocketServer`` listens (or failed to start).
final class StartupSignal: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, any Error>])
        case listening
        case failed(any Error)
    }

    private let state = Mutex(State.waiting([]))

    /// Waits until ``markListening()`` or ``markFailed(_:)``.
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .listening: return .success(())
                case .failed(let error): return .failure(error)
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// The socket is accepting connections.
    func markListening() { settle(.success(())) }

    /// The server gave up before listening.
    func markFailed(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<Void, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            switch outcome {
            case .success: state = .listening
            case .failure(let error): state = .failed(error)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
