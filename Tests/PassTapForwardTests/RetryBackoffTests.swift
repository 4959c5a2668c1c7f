import Testing
@testable import PassTapForward

/// The backoff's delays, with the jitter's random bits fixed: no clock, no sleep.
@Suite struct RetryBackoffTests {
    func delays(_ count: Int, bits: UInt64) -> [Duration] {
        var backoff = RetryBackoff()
        var random = ConstantRandom(bits: bits)
        return (0..<count).map { _ in backoff.delay(retryAfter: nil, using: &random) }
    }

    @Test func theDelaysDoubleFromOneSecondUpToFiveMinutes() {
        // All bits set: the jitter's top, the whole base.
        #expect(delays(11, bits: .max) == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { .seconds($0) })
        // No bit set: the jitter's bottom, half the base.
        #expect(delays(11, bits: 0) == [500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128_000, 150_000, 150_000].map { .milliseconds($0) })
    }

    @Test func jitterStaysBetweenHalfTheBaseAndTheBase() {
        var backoff = RetryBackoff()
        var random = SeededRandom(seed: 22)
        var seen: Set<Duration> = []
        for failure in 0..<40 {
            let base = RetryBackoff.base(afterFailures: failure)
            let delay = backoff.delay(retryAfter: nil, using: &random)
            #expect(delay >= base / 2 && delay <= base, "failure \(failure): \(delay)")
            if base == RetryBackoff.maximum { seen.insert(delay) }
        }
        // At the cap the waits still differ: tills do not come back in step.
        #expect(seen.count > 20)
    }

    @Test func aLongerRetryAfterWinsAShorterOneDoesNotAndItIsCappedAtAnHour() {
        var backoff = RetryBackoff()
        var random = ConstantRandom(bits: .max)
        #expect(backoff.delay(retryAfter: .seconds(30), using: &random) == .seconds(30))
        // The second failure's backoff (2 s) is longer than 100 ms.
        #expect(backoff.delay(retryAfter: .milliseconds(100), using: &random) == .seconds(2))
        #expect(backoff.delay(retryAfter: .seconds(7200), using: &random) == .seconds(3600))
        // Retry-After does not stop the backoff growing.
        #expect(backoff.delay(retryAfter: nil, using: &random) == .seconds(8))
    }

    @Test func aSuccessStartsTheBackoffAgain() {
        var backoff = RetryBackoff()
        var random = ConstantRandom(bits: .max)
        for _ in 0..<5 { _ = backoff.delay(retryAfter: nil, using: &random) }
        #expect(backoff.delay(retryAfter: nil, using: &random) == .seconds(32))
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.delay(retryAfter: nil, using: &random) == .seconds(1))
    }
}
