import Synchronization

/// The on-demand pass reads of `pass.read` (and its older name `vas.read`; ProximityReader's
/// `readVAS`), for either wallet, Apple VAS or Google Smart Tap: callers wait for the next card
/// arrival on a reader, and each tap answers every read waiting on that reader.
///
/// A card already in the field does not count: only taps that begin after the call claim it. The
/// tap still publishes its `read.result` as every tap does; the waiting callers also get it.
///
/// One tap serves all the reads waiting when it begins: the phone is asked for the union of their
/// `merchants` (every configured merchant when one of them names none), and each read gets the
/// tap's result with only the merchants it asked for (the others `not_requested`). So no caller
/// can take a tap from another by waiting first: a second `read` holder that keeps a read waiting
/// for its own merchant does not make the till miss the customer's pass.
///
/// A read whose timeout fires after a tap has claimed it is not timed out: it gets that tap's
/// result (which asked for its `merchants`). Only a read still waiting when its timeout fires
/// is removed and answered ``WaitError/timeout``; the check and the removal are one atomic step.
/// A read whose caller goes away (its task is cancelled: the client disconnected, or the daemon
/// is stopping) ends at once, claimed or not: a tap stuck on a card that never answers must not
/// hold it, and the tap's result still goes out as `read.result`.
public final class PassReadQueue: Sendable {
    /// Why a wait ended without a tap.
    public enum WaitError: Error, Hashable, Sendable {
        /// No card arrived on the reader within the timeout.
        case timeout
        /// Only cards that cannot answer a wallet read arrived within the timeout: this many taps
        /// of memory cards and tags (``skip(reader:)``).
        case skippedOnly(Int)
        /// The caller went away (its task was cancelled).
        case cancelled
    }

    /// The waiting reads that a tap has taken, oldest first, and what the tap asks the phone for.
    public struct Claim: Sendable {
        /// One read the tap answers, and the merchants that read asked for.
        fileprivate struct Read: Sendable {
            let id: UInt64
            let merchants: Set<String>?
        }

        fileprivate let reads: [Read]

        /// The pass type ids to ask for: the union of the reads' `merchants`; `nil` (every
        /// configured merchant) when any read asked for all.
        public var merchants: Set<String>? {
            var union = Set<String>()
            for read in reads {
                guard let asked = read.merchants else { return nil }
                union.formUnion(asked)
            }
            return union
        }

        /// How many reads the tap answers.
        public var count: Int { reads.count }
    }

    /// Runs a read's timeout: waits `timeout`, then calls `fire`; returns without firing when its
    /// task is cancelled (the read ended first).
    package typealias Timer = @Sendable (_ timeout: Duration, _ fire: @Sendable () -> Void) async -> Void

    private typealias Continuation = CheckedContinuation<ReadResult, any Error>

    private enum Phase {
        case allocated
        /// Timed out or cancelled before the read registered: it ends with this error as it does.
        case endedEarly(WaitError)
        /// `skipped`: the taps that passed it over (``skip(reader:)``).
        case waiting(reader: ReaderID, merchants: Set<String>?, skipped: Int, Continuation)
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

    /// Called when a card arrives on `reader`: takes every read waiting on it, oldest first;
    /// `nil` when none waits.
    public func claim(reader: ReaderID) -> Claim? {
        state.withLock { state in
            let ids = state.order.removeValue(forKey: reader) ?? []
            let reads = ids.compactMap { id -> Claim.Read? in
                guard case .waiting(_, let merchants, _, let continuation) = state.phases[id] else { return nil }
                state.phases[id] = .claimed(continuation)
                return Claim.Read(id: id, merchants: merchants)
            }
            return reads.isEmpty ? nil : Claim(reads: reads)
        }
    }

    /// Called when a card that cannot answer a wallet read (a memory card, a tag) arrives on
    /// `reader`: every read waiting there keeps waiting, and counts the tap, so that its timeout
    /// can say that taps came (``WaitError/skippedOnly(_:)``).
    public func skip(reader: ReaderID) {
        state.withLock { state in
            for id in state.order[reader] ?? [] {
                guard case .waiting(let reader, let merchants, let skipped, let continuation) = state.phases[id] else { continue }
                state.phases[id] = .waiting(reader: reader, merchants: merchants, skipped: skipped + 1, continuation)
            }
        }
    }

    /// Answers each claimed read with its tap's result, narrowed to the merchants that read
    /// asked for (``ReadResult/answering(merchants:)``).
    public func finish(_ claim: Claim, with result: ReadResult) {
        let answers: [(Continuation, Set<String>?)] = state.withLock { state in
            claim.reads.compactMap { read in
                guard case .claimed(let continuation) = state.phases.removeValue(forKey: read.id) else { return nil }
                return (continuation, read.merchants)
            }
        }
        for (continuation, merchants) in answers {
            continuation.resume(returning: result.answering(merchants: merchants))
        }
    }

    /// Ends a read that no tap has claimed with `error`; a claimed read keeps waiting for its tap
    /// on a timeout, and ends too when cancelled. A timeout after skipped taps ends it with
    /// ``WaitError/skippedOnly(_:)``.
    private func end(id: UInt64, with error: WaitError) {
        let ended: (Continuation, WaitError)? = state.withLock { state in
            switch state.phases[id] {
            case .allocated:
                state.phases[id] = .endedEarly(error)
                return nil
            case .waiting(let reader, _, let skipped, let continuation):
                state.phases[id] = nil
                state.order[reader]?.removeAll { $0 == id }
                if state.order[reader]?.isEmpty == true { state.order[reader] = nil }
                return (continuation, error == .timeout && skipped > 0 ? .skippedOnly(skipped) : error)
            case .claimed(let continuation) where error == .cancelled:
                state.phases[id] = nil
                return (continuation, error)
            case .endedEarly, .claimed, nil:
                return nil
            }
        }
        if let (continuation, error) = ended { continuation.resume(throwing: error) }
    }

    private func wait(id: UInt64, reader: ReaderID, merchants: Set<String>?) async throws -> ReadResult {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                let ended: WaitError? = state.withLock { state in
                    if case .endedEarly(let error) = state.phases[id] {
                        state.phases[id] = nil
                        return error
                    }
                    state.phases[id] = .waiting(reader: reader, merchants: merchants, skipped: 0, continuation)
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
