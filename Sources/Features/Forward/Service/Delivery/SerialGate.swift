import Synchronization

/// Runs async bodies one at a time, in the order they arrive (the forwarder's start, its reloads
/// and its stop each change the set of running sinks across several awaits).
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every body that came before has finished.
    func run<Value: Sendable>(_ body: () async -> Value) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enter = state.withLock { state -> Bool in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if enter { continuation.resume() }
        }
        let value = await body()
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
        return value
    }
}
