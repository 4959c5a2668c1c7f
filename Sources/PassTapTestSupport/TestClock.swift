public import Foundation
import Synchronization
public import PassTapCore

/// The one test clock: it moves only when a test says so (``advance(by:)``), and reads as each
/// kind of time the code under test takes:
/// - ``daemonClock``, the `DaemonClock` production code is given (its wall date, its monotonic
///   instant and its sleep all follow this clock);
/// - ``now``, a `ContinuousClock.Instant` (sessions' budgets, the web's failure windows);
/// - ``date``, the wall clock that moves with it (from the `date:` it was made with);
/// - itself, as a `Clock` tasks sleep on (the forwarder's retries); ``waitForSleep(_:)`` tells the
///   test when something sleeps on it, so a test advances it only once the sleeper is there.
public final class TestClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed: Duration = .zero
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var watchers: [(remaining: Duration, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    /// The instant the clock started at (the real one when it was made).
    private let origin = ContinuousClock.now
    /// The wall-clock time it started at.
    public let start: Date

    /// A clock that starts at `date` (the real time by default) and stands still until advanced.
    public init(date: Date = Date()) {
        start = date
    }

    /// The current instant.
    public var now: Instant { origin.advanced(by: state.withLock { $0.elapsed }) }
    public var minimumResolution: Duration { .zero }
    /// This clock as production code takes it: date, instant and sleep all follow it.
    public var daemonClock: DaemonClock { DaemonClock(self, date: { self.date }) }
    /// The wall-clock time now.
    public var date: Date { start.addingTimeInterval(Self.seconds(state.withLock { $0.elapsed })) }
    /// How far each sleeper has still to sleep, shortest first.
    public var pendingSleeps: [Duration] {
        state.withLock { state in state.sleepers.values.map { self.origin.advanced(by: state.elapsed).duration(to: $0.deadline) }.sorted() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= origin.advanced(by: state.elapsed) { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, due(&state))
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
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.elapsed += duration
            let now = origin.advanced(by: state.elapsed)
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Returns once a task sleeps on the clock with `remaining` still to sleep.
    public func waitForSleep(_ remaining: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let there = state.withLock { state -> Bool in
                let now = origin.advanced(by: state.elapsed)
                if state.sleepers.values.contains(where: { now.duration(to: $0.deadline) == remaining }) { return true }
                state.watchers.append((remaining, continuation))
                return false
            }
            if there { continuation.resume() }
        }
    }

    /// The watchers whose remaining time a sleeper now has, removed from `state`.
    private func due(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let now = origin.advanced(by: state.elapsed)
        let remaining = Set(state.sleepers.values.map { now.duration(to: $0.deadline) })
        let due = state.watchers.filter { remaining.contains($0.remaining) }.map(\.continuation)
        state.watchers.removeAll { remaining.contains($0.remaining) }
        return due
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
