import Synchronization

/// The daemon's one serialiser: runs async bodies one at a time, in the order they arrive. The
/// forwarder's start, reloads and stop each change the set of running sinks across several
/// awaits; the outbox's operations are each a whole SQLite transaction over several statements.
public final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A gate no body holds.
    public init() {}

    /// Runs `body` once every body that came before has finished, and returns (or throws) what
    /// it did; the next body goes in when this one has returned or thrown.
    public func run<Value: Sendable, Failure: Error>(_ body: () async throws(Failure) -> Value) async throws(Failure) -> Value {
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
        defer { leave() }
        return try await body()
    }

    /// Lets the next waiting body in, or marks the gate free.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
