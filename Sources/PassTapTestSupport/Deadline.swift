import Synchronization

// Shared by the test targets (PassTapTestSupport is not a product).

/// A wait in a test that did not end in time. The test fails at once, naming what it waited
/// for, instead of hanging until the suite's time limit.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// How long.
    public let seconds: Double

    /// A deadline of `seconds` for `what` that passed.
    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }

    public var description: String { "waited \(seconds) s for \(what) in vain" }
}

/// How long an in-process wait may take. Events between tasks of one process arrive in
/// microseconds; this is slack for a loaded 2-core machine, not a timing assertion.
public let defaultDeadlineSeconds = 5.0

/// Runs `operation` in a task of its own and returns what it returns, or throws
/// ``DeadlineExceeded`` once `seconds` have passed. At the deadline the operation is cancelled
/// and left behind, so this returns on time even when the operation ignores cancellation.
public func withDeadline<Value: Sendable>(
    _ what: String, seconds: Double = defaultDeadlineSeconds, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = FirstOutcome<Value>()
    let work = Task {
        do {
            outcome.settle(.success(try await operation()))
        } catch {
            outcome.settle(.failure(error))
        }
    }
    let timer = Task {
        try? await Task.sleep(for: .seconds(seconds))
        if !Task.isCancelled { outcome.settle(.failure(DeadlineExceeded(what: what, seconds: seconds))) }
    }
    defer {
        work.cancel()
        timer.cancel()
    }
    return try await withTaskCancellationHandler {
        try await outcome.value()
    } onCancel: {
        outcome.settle(.failure(CancellationError()))
    }
}

/// The value of `task` within a deadline; `task` is cancelled if the deadline passes first.
public func value<Value: Sendable, Failure: Error>(
    of task: Task<Value, Failure>, _ what: String, seconds: Double = defaultDeadlineSeconds
) async throws -> Value {
    try await withDeadline(what, seconds: seconds) {
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }
}

/// The first result given to ``settle(_:)``; later ones are ignored.
private final class FirstOutcome<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    func settle(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
