public import Foundation
import PassTapProtocol

/// What a webhook receiver's answer means for the event (the issue's §2 "Webhook"):
///
/// | Status | Outcome |
/// |---|---|
/// | 2xx | delivered |
/// | 408, 429, 5xx | retried, not before `Retry-After` when given |
/// | other 4xx | dead (refused for good; `passtap forward retry` sends it again) |
/// | 3xx | retried: redirects are not followed (see below) |
/// | 1xx, anything else | retried |
///
/// Redirects are not followed: the signed body would go to an address nobody configured (perhaps
/// `http://`, perhaps another host). A 3xx is retried, not dead-listed, because it means the
/// `url` is out of date: the events wait, in order, until the operator sets the new `url`.
public enum WebhookReply {
    /// The outcome of one event's request answered with `status`; `retryAfter` is the answer's
    /// `Retry-After` header, read relative to `now`.
    public static func outcome(status: Int, reason: String, retryAfter: String?, now: Date) -> DeliveryOutcome {
        let answered = "the receiver answered \(status)\(reason.isEmpty ? "" : " " + Self.printable(reason))"
        switch status {
        case 200...299:
            return .delivered
        case 408, 429, 500...599:
            let after = retryAfter.flatMap { RetryAfter.delay($0, now: now) }
            let wait = after.map { " (Retry-After: \(Self.seconds($0)) s)" } ?? ""
            return .retry(delivered: 0, after: after, error: ForwardFailure(.httpStatus, answered + wait))
        case 400...499:
            return .dead(delivered: 0, error: ForwardFailure(.httpStatus, answered + ": refused for good"))
        case 300...399:
            return .retry(delivered: 0, after: nil, error: ForwardFailure(.httpStatus, answered + ": redirects are not followed; set url to the new address"))
        default:
            return .retry(delivered: 0, after: nil, error: ForwardFailure(.httpStatus, answered))
        }
    }

    /// A reason phrase as shown in an error: printable ASCII only, at most 64 characters.
    static func printable(_ reason: String) -> String {
        String(String.UnicodeScalarView(reason.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(64)))
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0 ? "\(seconds)" : String(format: "%.3f", Double(seconds) + Double(attoseconds) / 1e18)
    }
}
