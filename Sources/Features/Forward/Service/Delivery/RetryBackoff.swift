/// When a sink tries again after a failed delivery: exponential backoff with jitter, reset by a
/// success, and the receiver's `Retry-After` honoured.
///
/// The n-th failure in a row (from 0) has a base of 1 s · 2ⁿ, at most ``maximum`` (5 min, reached
/// at the 10th). The wait is drawn between half the base and the whole base (so a fleet of tills
/// that lost the same receiver does not come back in step), in whole milliseconds. A `Retry-After`
/// longer than that wait replaces it, up to ``maximumRetryAfter`` (1 h): a receiver cannot park a
/// sink for longer, nor make it come back sooner than the backoff.
public struct RetryBackoff: Sendable, Hashable {
    /// The first base: 1 s.
    public static let first: Duration = .seconds(1)
    /// The largest base: 5 min.
    public static let maximum: Duration = .seconds(300)
    /// The longest `Retry-After` honoured: 1 h.
    public static let maximumRetryAfter: Duration = .seconds(3600)

    /// Failures since the last success.
    public private(set) var failures = 0

    /// No failure yet.
    public init() {}

    /// The wait before the next attempt, after one more failure; `retryAfter` is what the
    /// receiver asked for, if anything. `generator` draws the jitter.
    public mutating func delay(retryAfter: Duration?, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = Self.base(afterFailures: failures)
        failures += 1
        // A fraction in [0, 1], both ends included: 53 random bits over 2^53 - 1.
        let fraction = Double(generator.next() >> 11) / Double((1 << 53) - 1)
        let half = Self.milliseconds(base) / 2
        let jittered = Duration.milliseconds(half + Int64((Double(half) * fraction).rounded()))
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, Self.maximumRetryAfter))
    }

    /// A success: the next failure waits from ``first`` again.
    public mutating func reset() {
        failures = 0
    }

    /// The base of the wait after `failures` failures in a row.
    static func base(afterFailures failures: Int) -> Duration {
        // 2^9 s is past the 300 s cap already; stop shifting before it can overflow.
        failures >= 9 ? maximum : min(first * (1 << failures), maximum)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
