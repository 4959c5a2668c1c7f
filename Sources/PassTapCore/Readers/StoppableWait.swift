import Foundation

/// A pause that ends early: ``stop()`` ends every pause, now and later, for good; ``signal()``
/// ends one (the pause under way, or else the next). Every thread PassTap owns that waits between
/// blocking calls pauses through one of these, so stopping it never waits out a timer: the
/// registry's discovery thread, the reader supervisor, a reader's backoff, a libnfc reader's poll
/// cycle.
public final class StoppableWait: @unchecked Sendable {
    // `stopped` and `signalled` are guarded by `condition`.
    private let condition = NSCondition()
    private var stopped = false
    private var signalled = false

    /// A wait that is neither stopped nor signalled.
    public init() {}

    /// Whether ``stop()`` was called.
    public var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Ends the pause under way and every later one at once. Never blocks.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the pause under way, or else the next one. Never blocks.
    public func signal() {
        condition.lock()
        signalled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Pauses until `deadline`: true when it passed, false when signalled (the signal is used up)
    /// or stopped.
    @discardableResult
    public func pause(until deadline: ContinuousClock.Instant) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !signalled, !stopped {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return true }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left.secondsValue))
        }
        signalled = false
        return false
    }

    /// Pauses for `duration` (see ``pause(until:)``).
    @discardableResult
    public func pause(for duration: Duration) -> Bool {
        pause(until: .now + duration)
    }

    /// Waits until `done` holds, looking again at every ``signal()``, but no later than
    /// `deadline`; returns whether it holds. ``stop()`` does not end this wait: it is how a
    /// stopping thread waits for others to finish.
    public func wait(until deadline: ContinuousClock.Instant, for done: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !done() {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return done() }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left.secondsValue))
        }
        return true
    }
}

extension Duration {
    /// The duration in seconds, for `Date`-based waits.
    fileprivate var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
