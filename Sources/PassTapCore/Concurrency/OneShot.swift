import Synchronization

/// The daemon's one-shot waiter: an outcome that is settled once (a value or an error), and that
/// every caller of ``wait()`` gets, before or after it was settled. The first settlement wins;
/// later ones are ignored.
///
/// Use it for "has this started?": the readers' backends (`Void`, never failing), the socket
/// server and an HTTP listener's first bind (the bound address, or why it never will). Something
/// that can go down and come back is not a one-shot: keep its state apart (as `HTTPListener`
/// keeps `ListenerState`), and use this only for the first time, if at all.
public final class OneShot<Value: Sendable, Failure: Error>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Result<Value, Failure>, Never>])
        case settled(Result<Value, Failure>)
    }

    private let state = Mutex(State.waiting([]))

    /// A one-shot that is not settled yet.
    public init() {}

    /// Returns the value (or throws the error) once the one-shot is settled.
    public func wait() async throws(Failure) -> Value {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            let settled: Result<Value, Failure>? = state.withLock { state in
                switch state {
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return nil
                case .settled(let outcome): return outcome
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
        return try outcome.get()
    }

    /// Settles with `outcome` and wakes every waiter, unless it was settled before.
    public func settle(_ outcome: Result<Value, Failure>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Value, Failure>, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .settled(outcome)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// Settles with `value` (see ``settle(_:)``).
    public func succeed(_ value: Value) { settle(.success(value)) }

    /// Settles with `error` (see ``settle(_:)``).
    public func fail(_ error: Failure) { settle(.failure(error)) }
}

extension OneShot where Value == Void {
    /// Settles with success (see ``settle(_:)``).
    public func succeed() { settle(.success(())) }
}
