import Testing

@testable import PassTapServer

/// The `/rpc` auth failure limiter: a sliding minute per Origin, under a global cap, on a clock
/// the test moves.
@Suite struct AuthFailureLimiterTests {
    let start = ContinuousClock.now

    @Test func failuresUpToTheOriginsLimitArePlainFailures() {
        var limiter = AuthFailureLimiter()
        for second in 0..<3 {
            let verdict = limiter.recordFailure(origin: "https://a.example", at: start + .seconds(second), perOrigin: 3, total: 100)
            #expect(verdict == .init(retryAfter: nil, logs: true))
        }
    }

    @Test func theFailureOverTheLimitSaysWhenTheOldestLeavesTheMinute() {
        var limiter = AuthFailureLimiter()
        _ = limiter.recordFailure(origin: "o", at: start, perOrigin: 2, total: 100)
        _ = limiter.recordFailure(origin: "o", at: start + .seconds(10), perOrigin: 2, total: 100)
        let over = limiter.recordFailure(origin: "o", at: start + .seconds(20), perOrigin: 2, total: 100)
        // The failures at 10 s and 20 s are the last two: the one at 10 s leaves at 70 s.
        #expect(over.retryAfter == .seconds(50))
        // At 70 s only the one at 20 s is left in the minute: under the limit again.
        #expect(limiter.recordFailure(origin: "o", at: start + .seconds(70), perOrigin: 2, total: 100).retryAfter == nil)
    }

    @Test func eachOriginHasItsOwnCount() {
        var limiter = AuthFailureLimiter()
        _ = limiter.recordFailure(origin: "a", at: start, perOrigin: 1, total: 100)
        #expect(limiter.recordFailure(origin: "a", at: start, perOrigin: 1, total: 100).retryAfter != nil)
        #expect(limiter.recordFailure(origin: "b", at: start, perOrigin: 1, total: 100).retryAfter == nil)
        #expect(limiter.recordFailure(origin: "no Origin", at: start, perOrigin: 1, total: 100).retryAfter == nil)
    }

    @Test func theGlobalCapLimitsEveryOriginAndBoundsWhatIsRemembered() {
        var limiter = AuthFailureLimiter()
        for index in 0..<5 {
            #expect(limiter.recordFailure(origin: "o\(index)", at: start + .seconds(index), perOrigin: 10, total: 5).retryAfter == nil)
        }
        // A sixth Origin, never seen, is over the global cap.
        let over = limiter.recordFailure(origin: "fresh", at: start + .seconds(5), perOrigin: 10, total: 5)
        #expect(over.retryAfter == .seconds(56))
        // Failures over the cap are not remembered per Origin: a flood of new Origins costs nothing.
        for index in 0..<1000 {
            _ = limiter.recordFailure(origin: "flood\(index)", at: start + .seconds(6), perOrigin: 10, total: 5)
        }
        #expect(limiter.originsRemembered == 5)
        // A minute on, everything is forgotten.
        #expect(limiter.recordFailure(origin: "later", at: start + .seconds(120), perOrigin: 10, total: 5).retryAfter == nil)
        #expect(limiter.originsRemembered == 1)
    }

    @Test func overTheLimitOneFailurePerOriginAndMinuteIsLogged() {
        var limiter = AuthFailureLimiter()
        _ = limiter.recordFailure(origin: "o", at: start, perOrigin: 1, total: 100)
        #expect(limiter.recordFailure(origin: "o", at: start + .seconds(1), perOrigin: 1, total: 100).logs)
        #expect(!limiter.recordFailure(origin: "o", at: start + .seconds(2), perOrigin: 1, total: 100).logs)
        #expect(!limiter.recordFailure(origin: "o", at: start + .seconds(60), perOrigin: 1, total: 100).logs)
        #expect(limiter.recordFailure(origin: "o", at: start + .seconds(62), perOrigin: 1, total: 100).logs)
    }
}
