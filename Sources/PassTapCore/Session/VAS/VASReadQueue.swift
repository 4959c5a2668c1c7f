import Synchronization

/// The on-demand VAS reads of `vas.read` (ProximityReader's `readVAS`): callers wait for the next
/// card arrival on a reader, queued per reader, one tap each, oldest first.
///
/// A card already in the field does not count: only taps that begin after the call claim it. The
/// tap still publishes its `read.result` as every tap does; the waiting caller also gets it.
///
/// A read whose timeout fires after a tap has claimed it is not timed out: it gets that tap's
/// result (which was shaped by its `merchants`). Only a read still waiting when its timeout fires
/// is removed and answered ``WaitError/timeout``; the check and the removal are one atomic step.
/// A read whose caller goes away (its task is cancelled: the client disconnected, or the daemon
/// is stopping) ends at once, claimed or not: a tap stuck on a card that never answers must not
/// hold it, and the tap's result still goes out as `read.result`.
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

    /// Runs a read's timeout: waits `timeout`, then calls `fire`; returns without firing when its
    /// task is cancelled (the read ended first).
    package typealias Timer = @Sendable (_ timeout: Duration, _ fire: @Sendable () -> Void) async -> Void

    private typealias Continuation = CheckedContinuation<ReadResult, any Error>

    private enum Phase {
        case allocated
        /// Timed out or cancelled before the read registered: it ends with this error as it does.
        case endedEarly(WaitError)
        case waiting(reader: ReaderID, merchants: Set<String>?, Continuation)
        case claimed(Continuation)
    }

    private struct State {
        var nextID: UInt64 = 0
        var phases: [UInt64: Phase] = [:]
        var order: [ReaderID: [UInt64]] = [:]
    }

    private let state = Mutex(State())
    private let timer: Timer

    /// An empty queue.
    public convenience init() {
        self.init(timer: { timeout, fire in
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return
            }
            fire()
        })
    }

    /// An empty queue whose timeouts run on `timer` (tests fire them on cue).
    package init(timer: @escaping Timer) {
        self.timer = timer
    }

    /// How many reads wait on `reader`.
    public func waitingCount(on reader: ReaderID) -> Int {
        state.withLock { $0.order[reader]?.count ?? 0 }
    }

    /// Waits for the next tap on `reader` and returns its result.
    ///
    /// Throws ``WaitError/timeout`` only when no tap claimed the read before `timeout`; a read
    /// claimed in time waits for its tap to finish, however long the timeout was.
    public func nextTap(on reader: ReaderID, merchants: Set<String>?, timeout: Duration) async throws(WaitError) -> ReadResult {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.phases[state.nextID] = .allocated
            return state.nextID
        }
        do {
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await self.timer(timeout) { self.end(id: id, with: .timeout) } }
                defer { group.cancelAll() }
                return try await self.wait(id: id, reader: reader, merchants: merchants)
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
        let continuation: Continuation? = state.withLock { state in
            guard case .claimed(let continuation) = state.phases.removeValue(forKey: claim.id) else { return nil }
            return continuation
        }
        continuation?.resume(returning: result)
    }

    /// Ends a read that no tap has claimed with `error`; a claimed read keeps waiting for its tap
    /// on a timeout, and ends too when cancelled.
    private func end(id: UInt64, with error: WaitError) {
        let continuation: Continuation? = state.withLock { state in
            switch state.phases[id] {
            case .allocated:
                state.phases[id] = .endedEarly(error)
                return nil
            case .waiting(let reader, _, let continuation):
                state.phases[id] = nil
                state.order[reader]?.removeAll { $0 == id }
                if state.order[reader]?.isEmpty == true { state.order[reader] = nil }
                return continuation
            case .claimed(let continuation) where error == .cancelled:
                state.phases[id] = nil
                return continuation
            case .endedEarly, .claimed, nil:
                return nil
            }
        }
        continuation?.resume(throwing: error)
    }

    private func wait(id: UInt64, reader: ReaderID, merchants: Set<String>?) async throws -> ReadResult {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                let ended: WaitError? = state.withLock { state in
                    if case .endedEarly(let error) = state.phases[id] {
                        state.phases[id] = nil
                        return error
                    }
                    state.phases[id] = .waiting(reader: reader, merchants: merchants, continuation)
                    state.order[reader, default: []].append(id)
                    return nil
                }
                if let ended { continuation.resume(throwing: ended) }
            }
        } onCancel: {
            end(id: id, with: .cancelled)
        }
    }
}
