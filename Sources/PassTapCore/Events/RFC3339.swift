import Foundation

/// RFC 3339 timestamps in UTC with milliseconds (`2026-11-22T11:06:00.123Z`), as events carry them.
public enum RFC3339 {
    /// Formats `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func string(from date: Date) -> String {
        let millisTotal = (date.timeIntervalSince1970 * 1000).rounded(.down)
        var seconds = time_t(Int64((millisTotal / 1000).rounded(.down)))
        let millis = Int(millisTotal - Double(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), millis)
    }

    /// Parses an RFC 3339 time with or without fractional seconds; `nil` if it is not one.
    public static func date(from text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: text)
    }
}
