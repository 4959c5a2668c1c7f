import Foundation

/// Runs blocking `work` (a socket read with a deadline, a `recv` with a timeout) on a thread of
/// its own and returns what it returns, so a test on the concurrency pool never blocks one of the
/// pool's few threads (two on a 2-core machine), which the code under test may need to answer.
public func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
