import Synchronization

/// The on-demand VAS reads of `vas.read` (ProximityReader's `readVAS`): callers wait for the next
/// card arrival on a reader, queued per reader, one tap each, oldest first.
///
/// A card already in the field does not count: only taps that begin after the call claim it. The
/// tap still publishes its `read.result` as every tap does; the waiting caller also gets it.
public final class VASReadQueue: Sendable {
    /// Why a wait ended without a tap.
    public enum WaitError: Error, Hashable, Sendable {
        /// No card arrived on the reader within the timeout.
        case timeout
        /// The caller went away (its task was cancelled).
        case cancelled
    }

    /// A waiting read that a tap has taken: its merchant subset, to shape the tap's requests.
    public struct Claim: Sendable {
        fileprivate let id: UInt64
        /// The pass type ids to ask for; `nil` asks every configured merchant.
        public let merchants: Set<String>?
    }

    private enum Phase {
        case allocated
        case cancelledEarly
        case waiting(reader: ReaderID, merchants: Set<String>?, CheckedContinuation<ReadResult, any Error>)
        case claimed(CheckedContinuation<ReadResult, any Error>)
    }

    private struct State {
        var nextID: UInt64 = 0
        var phases: [UInt64: Phase] = [:]
        var order: [ReaderID: [UInt64]] = [:]
    }

    private let state = Mutex(State())

    /// An empty queue.
    public init() {}

    /// How many reads wait on `reader`.
    public func waitingCount(on reader: ReaderID) -> Int {
        state.withLock { $0.order[reader]?.count ?? 0 }
    }

    /// Waits for the next tap on `reader` and returns its result.
    public func nextTap(on reader: ReaderID, merchants: Set<String>?, timeout: Duration) async throws(WaitError) -> ReadResult {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.phases[state.nextID] = .allocated
            return state.nextID
        }
        do {
            return try await withThrowingTaskGroup(of: ReadResult?.self) { group in
                group.addTask { try await self.wait(id: id, reader: reader, merchants: merchants) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                guard let result = first else { throw WaitError.timeout }
                return result
            }
        } catch let error as WaitError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Called when a card arrives on `reader`: takes the oldest waiting read, if any.
    public func claim(reader: ReaderID) -> Claim? {
        state.withLock { state in
            while var ids = state.order[reader], !ids.isEmpty {
                let id = ids.removeFirst()
                state.order[reader] = ids.isEmpty ? nil : ids
                guard case .waiting(_, let merchants, let continuation) = state.phases[id] else { continue }
                state.phases[id] = .claimed(continuation)
                return Claim(id: id, merchants: merchants)
            }
            return nil
        }
    }

    /// Answers a claimed read with its tap's result.
    public func finish(_ claim: Claim, with result: ReadResult) {
        let continuation: CheckedContinuation<ReadResult, any Error>? = state.withLock { state in
            guard case .claimed(let continuation) = state.phases.removeValue(forKey: claim.id) else { return nil }
            return continuation
        }
        continuation?.resume(returning: result)
    }

    private func wait(id: UInt64, reader: ReaderID, merchants: Set<String>?) async throws -> ReadResult {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ReadResult, any Error>) in
                let cancelled = state.withLock { state in
                    if case .cancelledEarly = state.phases[id] {
                        state.phases[id] = nil
                        return true
                    }
                    state.phases[id] = .waiting(reader: reader, merchants: merchants, continuation)
                    state.order[reader, default: []].append(id)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<ReadResult, any Error>? = state.withLock { state in
                switch state.phases[id] {
                case .allocated:
                    state.phases[id] = .cancelledEarly
                    return nil
                case .waiting(let reader, _, let continuation):
                    state.phases[id] = nil
                    state.order[reader]?.removeAll { $0 == id }
                    if state.order[reader]?.isEmpty == true { state.order[reader] = nil }
                    return continuation
                case .cancelledEarly, .claimed, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }
}
