import Foundation
import Testing

@testable import PassTapForward

/// `Retry-After` (RFC 9110, section 10.2.3) read against an injected `now`, never the clock.
@Suite struct RetryAfterTests {
    /// 1994-11-06 08:49:37 UTC, the date of RFC 9110's examples.
    static let rfcDate = Date(timeIntervalSince1970: 784_111_777)

    @Test func delaySecondsAreTakenAsTheyAre() {
        #expect(RetryAfter.delay("120", now: Self.rfcDate) == .seconds(120))
        #expect(RetryAfter.delay(" 0 ", now: Self.rfcDate) == .zero)
    }

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func everyHTTPDateFormCountsFromNow(_ text: String) {
        #expect(RetryAfter.delay(text, now: Self.rfcDate.addingTimeInterval(-90)) == .seconds(90))
    }

    @Test func aDateInThePastIsNoDelay() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.rfcDate.addingTimeInterval(5)) == .zero)
    }

    @Test func aLongDelayIsCappedAtTheMaximum() {
        #expect(RetryAfter.delay("86400", now: Self.rfcDate) == RetryAfter.maximum)
        #expect(RetryAfter.delay("99999999999999999999999", now: Self.rfcDate) == RetryAfter.maximum)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.rfcDate.addingTimeInterval(-7200)) == RetryAfter.maximum)
    }

    @Test(arguments: ["", "-5", "1.5", "soon", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 32 Nov 1994 08:49:37 GMT"])
    func anythingElseIsNoRetryAfter(_ text: String) {
        #expect(RetryAfter.delay(text, now: Self.rfcDate) == nil)
    }
}
