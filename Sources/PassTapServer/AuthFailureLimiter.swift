/// Counts failed `/rpc` `auth` attempts in a sliding minute, per Origin and for all Origins
/// together, against `[web] auth_failures_per_origin` and `auth_failures_total`.
///
/// It only ever judges failures: a correct token from an allowed Origin never reaches it, so no
/// flood of wrong tokens (every web client is 127.0.0.1, so an address says nothing) can delay or
/// lock out the till. A failure over either limit is answered `auth_rate_limited` with the time
/// until failures from that Origin count again, instead of `auth_failed`.
///
/// Memory is bounded: each Origin keeps at most its limit of times, all Origins together at most
/// the global cap, and an Origin is forgotten once its minute is over. A failure over the global
/// cap is not recorded per Origin. A pure value: the caller passes the time (the tests' clock).
struct AuthFailureLimiter {
    /// The window failures are counted in.
    static let window: Duration = .seconds(60)

    /// What one failure comes to.
    struct Verdict: Equatable {
        /// `nil`: under both limits (`auth_failed`); else how long until a failure from this
        /// Origin would be under them again (`auth_rate_limited`).
        var retryAfter: Duration?
        /// Whether to log it: every failure under the limits, then one per Origin per minute.
        var logs: Bool
    }

    private var byOrigin: [String: [ContinuousClock.Instant]] = [:]
    private var all = [ContinuousClock.Instant]()
    /// When each Origin's over-limit failures were last logged ("*": over the global cap).
    private var lastLogged: [String: ContinuousClock.Instant] = [:]

    /// Records a failure from `origin` (the `Origin` header, or "no Origin") at `now`.
    mutating func recordFailure(origin: String, at now: ContinuousClock.Instant, perOrigin: Int, total: Int) -> Verdict {
        forget(before: now - Self.window)
        if all.count >= total {
            all.append(now)
            while all.count > max(total, 1) { all.removeFirst() }
            return Verdict(retryAfter: retryAfter(all, limit: total, now: now), logs: logsOverLimit("*", now))
        }
        all.append(now)
        var times = byOrigin[origin] ?? []
        let over = times.count >= perOrigin
        times.append(now)
        while times.count > max(perOrigin, 1) { times.removeFirst() }
        byOrigin[origin] = times
        guard over else { return Verdict(retryAfter: nil, logs: true) }
        return Verdict(retryAfter: retryAfter(times, limit: perOrigin, now: now), logs: logsOverLimit(origin, now))
    }

    /// How many Origins it remembers (for tests of its bounds).
    var originsRemembered: Int { byOrigin.count }

    /// When the oldest of the last `limit` times leaves the window, a further failure is under the
    /// limit again.
    private func retryAfter(_ times: [ContinuousClock.Instant], limit: Int, now: ContinuousClock.Instant) -> Duration {
        guard limit > 0, let oldest = times.first else { return Self.window }
        return max(oldest + Self.window - now, .milliseconds(1))
    }

    private mutating func logsOverLimit(_ key: String, _ now: ContinuousClock.Instant) -> Bool {
        if let last = lastLogged[key], now - last < Self.window { return false }
        lastLogged[key] = now
        return true
    }

    /// Drops what left the window.
    private mutating func forget(before start: ContinuousClock.Instant) {
        while let first = all.first, first <= start { all.removeFirst() }
        for (origin, times) in byOrigin {
            var kept = times
            while let first = kept.first, first <= start { kept.removeFirst() }
            byOrigin[origin] = kept.isEmpty ? nil : kept
        }
        lastLogged = lastLogged.filter { $0.value > start }
    }
}
