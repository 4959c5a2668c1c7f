import Foundation
import Synchronization

/// A clock that moves only when a test says so (``advance(by:)``), and tells the test when
/// something sleeps on it (``waitForSleep(_:)``). Its ``date`` is the wall clock that moves
/// with it, for the forwarder's `now`.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var watchers: [(remaining: Duration, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    /// The wall-clock time at offset zero.
    let start = Date(timeIntervalSince1970: 1_795_000_000)

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    /// The wall-clock time now.
    var date: Date { start.addingTimeInterval(Self.seconds(now.offset)) }
    /// How far each sleeper has still to sleep, shortest first.
    var pendingSleeps: [Duration] {
        state.withLock { state in state.sleepers.values.map { state.now.duration(to: $0.deadline) }.sorted() }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, Self.due(&state))
                }
                for watcher in watchers { watcher.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration`, waking every sleeper whose deadline it reaches.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Returns once a task sleeps on the clock with `remaining` still to sleep.
    func waitForSleep(_ remaining: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.sleepers.values.contains(where: { state.now.duration(to: $0.deadline) == remaining }) { return true }
                state.watchers.append((remaining, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private static func due(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let remaining = Set(state.sleepers.values.map { state.now.duration(to: $0.deadline) })
        let due = state.watchers.filter { remaining.contains($0.remaining) }.map(\.continuation)
        state.watchers.removeAll { remaining.contains($0.remaining) }
        return due
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
