public import PassTapCore

/// The `health` member of `status`: the verdict a monitoring check acts on, and why.
///
/// ```json
/// {"state": "degraded", "problems": ["clock not synchronised"], "last_check_ms": 1200, "clock_synchronised": false}
/// ```
///
/// - `down`: no configured backend is up (every one reported `backend.down`, or none is
///   configured). (A daemon that does not answer is down too; `passtap status` says so.)
/// - `degraded`: running, but the system clock is not synchronised, a configured backend is
///   down, a reader is unavailable, or the last healthy check is older than the daemon's limit.
/// - `healthy`: none of these.
///
/// Both backends are graded alike: `pcsc` reports `backend.up` while pcscd answers, `nfc` once
/// libnfc initialises (with or without a device), and each reports `backend.down` with the
/// reason when that fails. So an nfc-only daemon is `down` when libnfc cannot be initialised
/// and otherwise healthy as far as its backend goes. A backend without a reader is not a
/// problem (a reader may be unplugged on purpose); a backend that has not reported yet (just
/// after start) is not one either.
public struct StatusHealth: Sendable, Hashable, Codable {
    /// The verdict.
    public enum State: String, Sendable, Hashable, Codable, Comparable {
        case healthy, degraded, down

        private var rank: Int {
            switch self {
            case .healthy: return 0
            case .degraded: return 1
            case .down: return 2
            }
        }

        public static func < (lhs: State, rhs: State) -> Bool { lhs.rank < rhs.rank }
    }

    /// The verdict.
    public var state: State
    /// Why it is not `healthy`, one line each, for a person (empty when healthy).
    public var problems: [String]
    /// Milliseconds since the daemon's last healthy check; `null` before the first one (or when
    /// no check runs).
    @Nullable public var lastCheckMilliseconds: Int?
    /// Whether the kernel says the system clock is synchronised (adjtimex(2)); `null` if it
    /// cannot tell. VAS freshness is checked against this clock.
    @Nullable public var clockSynchronised: Bool?

    /// Creates a health report.
    public init(state: State, problems: [String], lastCheckMilliseconds: Int?, clockSynchronised: Bool?) {
        self.state = state
        self.problems = problems
        self.lastCheckMilliseconds = lastCheckMilliseconds
        self.clockSynchronised = clockSynchronised
    }

    private enum CodingKeys: String, CodingKey {
        case state, problems
        case lastCheckMilliseconds = "last_check_ms"
        case clockSynchronised = "clock_synchronised"
    }
}

/// A backend in `status`: `{"name": "pcsc", "up": true, "reason": null}`.
public struct StatusBackend: Sendable, Hashable, Codable {
    /// `pcsc` or `nfc`.
    public var name: String
    /// `true` after `backend.up`, `false` after `backend.down`; `null` before either (just
    /// after start).
    @Nullable public var up: Bool?
    /// Why it is down; `null` otherwise.
    @Nullable public var reason: String?

    /// Creates a backend entry.
    public init(name: String, up: Bool?, reason: String?) {
        self.name = name
        self.up = up
        self.reason = reason
    }
}

/// A reader's last tap in `status`: `{"reader": "pcsc:...", "time": "2026-11-24T01:50:00.123Z", "outcome": "pass"}`.
/// Only when and what it came to; never the card's data.
public struct StatusLastTap: Sendable, Hashable, Codable {
    /// The reader.
    public var reader: ReaderID
    /// When its `read.result` was published (RFC 3339, UTC, milliseconds).
    public var time: String
    /// `pass`, `application`, `tag`, `nothing`, `memory_card` or `error` (see ``TapOutcome``).
    public var outcome: TapOutcome

    /// Creates an entry.
    public init(reader: ReaderID, time: String, outcome: TapOutcome) {
        self.reader = reader
        self.time = time
        self.outcome = outcome
    }
}
