/// Whether a pass timestamp is within the configured window of the host clock.
public enum VASFreshness: String, Hashable, Sendable {
    /// Within the window, or the check is off.
    case fresh
    /// Outside the window: report `stale` and withhold the payload unless configured otherwise.
    case stale
}
