import Foundation
import PassTapProtocol
import Testing

@testable import PassTapForward

/// What each answer status means (the issue's §2 "Webhook").
@Suite struct WebhookReplyTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [200, 201, 202, 204, 299]) func twoHundredsAreDelivered(_ status: Int) {
        #expect(WebhookReply.outcome(status: status, reason: "", retryAfter: "30", now: Self.now) == .delivered)
    }

    @Test(arguments: [408, 429, 500, 502, 503, 599]) func timeoutTooManyAndServerErrorsAreRetriedHonouringRetryAfter(_ status: Int) {
        let outcome = WebhookReply.outcome(status: status, reason: "Whatever", retryAfter: "30", now: Self.now)
        guard case .retry(let delivered, let after, let error) = outcome else {
            Issue.record("\(status) gave \(outcome)")
            return
        }
        #expect(delivered == 0 && after == .seconds(30))
        #expect(error.reason == .httpStatus && error.text.contains("answered \(status)") && error.text.contains("Retry-After: 30 s"))
        let without = WebhookReply.outcome(status: status, reason: "", retryAfter: nil, now: Self.now)
        #expect(without == .retry(delivered: 0, after: nil, error: ForwardFailure(.httpStatus, "the receiver answered \(status)")))
    }

    @Test(arguments: [400, 401, 403, 404, 409, 410, 413, 422, 499]) func otherFourHundredsAreDead(_ status: Int) {
        let outcome = WebhookReply.outcome(status: status, reason: "Bad Request", retryAfter: "30", now: Self.now)
        #expect(outcome == .dead(delivered: 0, error: ForwardFailure(.httpStatus, "the receiver answered \(status) Bad Request: refused for good")))
    }

    @Test(arguments: [301, 302, 303, 307, 308]) func redirectsAreRetriedNotFollowedNorDead(_ status: Int) {
        let outcome = WebhookReply.outcome(status: status, reason: "", retryAfter: nil, now: Self.now)
        guard case .retry(0, nil, let error) = outcome else {
            Issue.record("\(status) gave \(outcome)")
            return
        }
        #expect(error.reason == .httpStatus && error.text.contains("redirects are not followed"))
    }

    @Test func aReasonPhraseIsShownPrintableAndShort() {
        let reason = "Bad\u{7}\nRequest" + String(repeating: "x", count: 100)
        guard case .dead(_, let error) = WebhookReply.outcome(status: 400, reason: reason, retryAfter: nil, now: Self.now) else {
            Issue.record("not dead")
            return
        }
        #expect(!error.text.contains("\n") && !error.text.contains("\u{7}"))
        #expect(error.text.count < 120)
    }
}
