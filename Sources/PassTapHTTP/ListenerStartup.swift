import NIOCore
import Synchronization

/// Lets callers wait until an ``HTTPListener`` listens (or failed to start).
final class ListenerStartup: Sendable {
    private enum State {
        case waiting([CheckedContinuation<SocketAddress, any Error>])
        case settled(Result<SocketAddress, any Error>)
    }

    private let state = Mutex(State.waiting([]))

    func wait() async throws -> SocketAddress {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SocketAddress, any Error>) in
            let outcome: Result<SocketAddress, any Error>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .settled(let outcome): return outcome
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    func markListening(_ address: SocketAddress) { settle(.success(address)) }

    func markFailed(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ outcome: Result<SocketAddress, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<SocketAddress, any Error>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .settled(outcome)
            return waiters
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}
