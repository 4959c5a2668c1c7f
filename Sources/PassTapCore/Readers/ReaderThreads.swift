import Foundation
import Synchronization

/// Counts a backend's live threads so shutdown can wait for them without blocking a task's
/// thread: the last thread to exit resumes the waiters.
public final class ReaderThreads: Sendable {
    private struct State {
        var live = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they could register their continuation.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// No threads yet.
    public init() {}

    /// The number of threads started by ``spawn(name:_:)`` that have not returned yet.
    public var liveCount: Int { state.withLock { $0.live } }

    /// Runs `body` on a new thread of its own, counted until it returns. `name` (at most 15
    /// bytes are kept) is the thread's name in `ps -L`, gdb and the tests.
    public func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.live += 1 }
        let thread = Thread { [self] in
            // Set from the thread itself: it names the system thread.
            ThreadName.set(name)
            body()
            exited()
        }
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

    /// Returns when no thread is live, or as soon as the calling task is cancelled.
    public func allExited() async {
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

    /// Waits for every thread, but no longer than `deadline`; returns whether they all ended.
    public func allExited(within deadline: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.allExited()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
