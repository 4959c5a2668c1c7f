import Foundation
import Synchronization

/// Counts the backend's live threads so shutdown can wait for them without blocking a task's
/// thread: the last thread to exit resumes the waiter.
final class ThreadTracker: Sendable {
    private struct State {
        var live = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` on a new thread of its own, counted until it returns.
    func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.live += 1 }
        let thread = Thread { [self] in
            body()
            exited()
        }
        thread.name = name
        thread.start()
    }

    private func exited() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.live -= 1
            guard state.live == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns when no thread is live.
    func allExited() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.live == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
