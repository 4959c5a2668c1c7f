import Synchronization

/// A gate that opens once: ``wait()`` returns when ``open()`` has been called.
final class Latch: Sendable {
    private enum State {
        case closed([CheckedContinuation<Void, Never>])
        case open
    }

    private let state = Mutex(State.closed([]))

    /// Returns once the latch is open.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { state in
                guard case .closed(var waiters) = state else { return true }
                waiters.append(continuation)
                state = .closed(waiters)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Opens the latch: every waiter, and every later one, goes on.
    func open() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard case .closed(let waiters) = state else { return [] }
            state = .open
            return waiters
        }
        waiters.forEach { $0.resume() }
    }
}
