public import Foundation

/// The one way production code reads time: one value gives the wall clock (``date``: event
/// times, VAS freshness, webhook timestamps, retry dates), the monotonic clock (``now``: budgets,
/// durations, uptime, failure windows) and sleeps on the latter (``sleep(for:)``: the forwarder's
/// backoff and timers). Types take one (`clock: DaemonClock = .system`), and tests pass one that
/// moves only when they say so: ``init(date:now:sleep:)`` takes the three readings, and
/// ``init(_:date:)`` makes one from any `Clock` on `ContinuousClock`'s instants.
///
/// The names follow Swift's `Clock`: `now` is an instant, `date` the wall clock.
public struct DaemonClock: Sendable {
    private let readDate: @Sendable () -> Date
    private let readNow: @Sendable () -> ContinuousClock.Instant
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// A clock that reads `date` and `now`, and sleeps with `sleep`; each defaults to the system's.
    public init(
        date: @escaping @Sendable () -> Date = { Date() },
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await ContinuousClock().sleep(for: $0) }
    ) {
        readDate = date
        readNow = now
        sleeper = sleep
    }

    /// A clock whose instants and sleeps are `clock`'s, and whose wall time is `date`.
    public init<C: Clock & Sendable>(_ clock: C, date: @escaping @Sendable () -> Date) where C.Instant == ContinuousClock.Instant {
        self.init(date: date, now: { clock.now }, sleep: { try await clock.sleep(for: $0) })
    }

    /// The system's clocks: `Date()`, `ContinuousClock.now`, `ContinuousClock.sleep`.
    public static let system = DaemonClock()

    /// The wall-clock time now.
    public var date: Date { readDate() }

    /// The monotonic instant now.
    public var now: ContinuousClock.Instant { readNow() }

    /// Sleeps `duration` on the monotonic clock; throws `CancellationError` when cancelled.
    public func sleep(for duration: Duration) async throws { try await sleeper(duration) }
}
