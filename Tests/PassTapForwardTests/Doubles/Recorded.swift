import Synchronization

/// Values recorded by a test double, in the order they came, with a wait for a condition on them.
final class Recorded<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var watchers: [(condition: @Sendable ([Value]) -> Bool, continuation: CheckedContinuation<[Value], Never>)] = []
    }

    private let state = Mutex(State())

    /// Everything recorded so far.
    var values: [Value] { state.withLock { $0.values } }

    func append(_ value: Value) {
        let ready = state.withLock { state -> [(CheckedContinuation<[Value], Never>, [Value])] in
            state.values.append(value)
            let values = state.values
            var ready: [(CheckedContinuation<[Value], Never>, [Value])] = []
            state.watchers.removeAll { watcher in
                guard watcher.condition(values) else { return false }
                ready.append((watcher.continuation, values))
                return true
            }
            return ready
        }
        for (continuation, values) in ready { continuation.resume(returning: values) }
    }

    /// Returns the values once `condition` holds for them (wrap it in a deadline).
    @discardableResult
    func wait(until condition: @escaping @Sendable ([Value]) -> Bool) async -> [Value] {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> [Value]? in
                if condition(state.values) { return state.values }
                state.watchers.append((condition, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Returns the values once there are at least `count`.
    @discardableResult
    func wait(count: Int) async -> [Value] {
        await wait { $0.count >= count }
    }
}
