#if os(Linux)
internal import CTimex
#endif

/// Whether the kernel considers the system clock synchronised (by NTP, chrony, timesyncd...).
/// VAS passes carry a timestamp that `[vas] freshness_s` is checked against,
/// so an unsynchronised clock can make fresh passes look stale.
public enum ClockSynchronisation {
    /// adjtimex(2) with `modes` 0 (read only): `false` when it returns `TIME_ERROR` or the
    /// `STA_UNSYNC` status bit is set, `true` otherwise; `nil` when the call fails or the
    /// platform has no adjtimex.
    public static func isSynchronised() -> Bool? {
        #if os(Linux)
        var buffer = timex()
        buffer.modes = 0
        let state = adjtimex(&buffer)
        if state == -1 { return nil }
        return state != TIME_ERROR && (buffer.status & STA_UNSYNC) == 0
        #else
        return nil
        #endif
    }
}
