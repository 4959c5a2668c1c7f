import Synchronization

/// A monotonic clock that moves only when a test says so.
final class TestClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    /// The current instant.
    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    /// Moves the clock on by `duration`.
    func advance(by duration: Duration) {
        instant.withLock { $0 = $0.advanced(by: duration) }
    }
}
