public import Foundation

/// A `Retry-After` header (RFC 9110, section 10.2.3) as a delay: `delay-seconds` (digits) or an
/// `HTTP-date`, which counts from `now`. Recipients must accept all three date forms (section
/// 5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
public enum RetryAfter {
    /// The longest delay one answer can ask for: a receiver cannot park a sink for longer than
    /// this per answer (it can answer 429 again).
    public static let maximum: Duration = .seconds(3600)

    /// The delay `value` asks for, counted from `now` and capped at ``maximum``; a date in the
    /// past is no delay. `nil` when `value` is neither form (the forwarder's backoff applies).
    public static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits only; more than fit in an Int is "a very long time".
            guard let seconds = Int64(text) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        guard let date = httpDate(text) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return min(.milliseconds(Int64((seconds * 1000).rounded(.up))), maximum)
    }

    /// `text` as an HTTP-date in any of its three forms, in GMT; `nil` otherwise.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.isLenient = false
        // asctime pads a one-digit day with a space; fold runs of spaces so "d" reads it.
        let folded = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: folded) { return date }
        }
        return nil
    }
}
