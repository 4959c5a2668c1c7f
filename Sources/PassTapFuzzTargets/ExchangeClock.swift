import Synchronization

/// The monotonic clock a session engine reads: a fixed start plus 1 ms per exchange so far, so a
/// session's budget is spent by exchanges, not by the machine's speed.
final class ExchangeClock: Sendable {
    private let start = ContinuousClock.now
    private let exchanges = Mutex(0)

    func tick() { exchanges.withLock { $0 += 1 } }

    var now: ContinuousClock.Instant { start + .milliseconds(exchanges.withLock { $0 }) }
}
