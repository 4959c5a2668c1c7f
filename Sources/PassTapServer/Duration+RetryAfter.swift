extension Duration {
    /// The duration in whole milliseconds, rounded up, for an error's `data.retry_after_ms`: a
    /// client that waits that long is never early (`auth_rate_limited`, `rate_limited`).
    package var retryAfterMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
