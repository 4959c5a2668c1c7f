import Foundation
import Synchronization

/// Counts the backend's live threads so shutdown can wait for them without blocking a task's
/// thread: the last thread to exit resumes the waiters.
final class ThreadTracker: Sendable {
    private struct State {
        var live = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they could register their continuation.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// The number of threads started by ``spawn(name:_:)`` that have not returned yet.
    var liveCount: Int { state.withLock { $0.live } }

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
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns when no thread is live, or as soon as the calling task is cancelled (shutdown
    /// races this against its deadline: a thread stuck in a transmit must not hold it forever).
    func allExited() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.live == 0 || state.cancelledEarly.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
                if let continuation = state.waiters.removeValue(forKey: id) { return continuation }
                if state.live > 0 { state.cancelledEarly.insert(id) }
                return nil
            }
            continuation?.resume()
        }
    }
}
