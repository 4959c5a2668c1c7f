public import PassTapCore
public import PassTapProtocol

/// Where `status` learns the daemon's health beyond its readers: the ledger of backends and last
/// taps, the last healthy check (the systemd watchdog's), and the system clock.
public struct HealthSources: Sendable {
    /// Backends and last taps; `nil` reports none.
    public var ledger: HealthLedger?
    /// When the last healthy check passed; `nil` before the first. Injected by the daemon.
    public var lastHealthyCheck: @Sendable () -> ContinuousClock.Instant?
    /// A last healthy check older than this makes the daemon `degraded`; `nil` never does.
    public var staleAfter: Duration?
    /// Whether the system clock is synchronised (``ClockSynchronisation/isSynchronised()``).
    public var clockSynchronised: @Sendable () -> Bool?
    /// How many `/rpc` clients are authenticated now (``WebSessions/connectedClients``); `nil`
    /// when `[web] listen` is off, and `status` then leaves out `web_clients`.
    public var webClients: (@Sendable () -> Int)?
    /// Why a feature is degraded now, one sentence each (``FeatureSlice/problems()``): an
    /// optional listener down (`[web] listen`, `[metrics] listen`), forwarding to a sink broken
    /// (naming the sink and the reason's class, never a host or a server's text: `status` is for
    /// every `observe` peer), a reader hook failing. Each makes the daemon `degraded`; the
    /// watchdog's own check never looks at them.
    public var featureProblems: @Sendable () -> [String]
    /// The slices' reader-side hooks, whose states fill each reader's `hooks` member.
    public var readerHooks: ReaderHooks

    /// Sources for `status`; by default no ledger, no health check, and the kernel's clock state.
    public init(
        ledger: HealthLedger? = nil, lastHealthyCheck: @escaping @Sendable () -> ContinuousClock.Instant? = { nil },
        staleAfter: Duration? = nil, clockSynchronised: @escaping @Sendable () -> Bool? = { ClockSynchronisation.isSynchronised() },
        webClients: (@Sendable () -> Int)? = nil, featureProblems: @escaping @Sendable () -> [String] = { [] },
        readerHooks: ReaderHooks = ReaderHooks()
    ) {
        self.featureProblems = featureProblems
        self.readerHooks = readerHooks
        self.webClients = webClients
        self.ledger = ledger
        self.lastHealthyCheck = lastHealthyCheck
        self.staleAfter = staleAfter
        self.clockSynchronised = clockSynchronised
    }
}

extension HealthSources {
    /// Every problem beyond the readers: the features' (``featureProblems``), then the reader
    /// hooks'. `status.health.problems` and systemd's `STATUS=` line both say these.
    public func problems() -> [String] { featureProblems() + readerHooks.problems() }
}

extension StatusHealth {
    /// The verdict from what `status` reports (see ``StatusHealth`` for the rules).
    /// - Parameters:
    ///   - sinceLastCheck: the time since the last healthy check; `nil` when none passed yet.
    ///   - staleAfter: how old that check may be; `nil` for no limit.
    ///   - featureProblems: why features are degraded (each one `degraded`).
    public static func evaluate(
        backends: [StatusBackend], readers: [ReaderInfo], sinceLastCheck: Duration?, staleAfter: Duration?, clockSynchronised: Bool?,
        featureProblems: [String] = []
    ) -> StatusHealth {
        var state = State.healthy
        var problems: [String] = []
        func note(_ level: State, _ problem: String) {
            state = max(state, level)
            problems.append(problem)
        }
        if backends.isEmpty {
            note(.down, "no reader backend is configured")
        } else if backends.allSatisfy({ $0.up == false }) {
            note(.down, "no reader backend is up")
        }
        for backend in backends where backend.up == false {
            note(.degraded, "backend \(backend.name) is down" + (backend.reason.map { ": \($0)" } ?? ""))
        }
        for reader in readers where reader.state == .unavailable {
            note(.degraded, "reader \(reader.id) is unavailable" + (reader.reason.map { ": \($0)" } ?? ""))
        }
        if let sinceLastCheck, let staleAfter, sinceLastCheck > staleAfter {
            note(.degraded, "the last healthy check is \(milliseconds(sinceLastCheck)) ms old (limit \(milliseconds(staleAfter)) ms)")
        }
        if clockSynchronised == false {
            note(.degraded, "the system clock is not synchronised (VAS freshness depends on it)")
        }
        for problem in featureProblems { note(.degraded, problem) }
        return StatusHealth(
            state: state, problems: problems, lastCheckMilliseconds: sinceLastCheck.map(milliseconds),
            clockSynchronised: clockSynchronised)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// What the socket server and the web sessions tell the metrics recorder: clients coming and
/// going, events subscribers were told they missed, and failed `/rpc` `auth` attempts.
public struct SocketServerObserver: Sendable {
    /// A socket client was admitted (`+1`) or left (`-1`).
    public var clientsChanged: @Sendable (_ delta: Int) -> Void
    /// An `events.dropped` notice for `count` events went to a subscriber.
    public var eventsDropped: @Sendable (_ count: UInt64) -> Void
    /// A `/rpc` client authenticated (`+1`) or an authenticated one left (`-1`).
    public var webClientsChanged: @Sendable (_ delta: Int) -> Void
    /// An `auth` failed, answered with the error of reason `reason` (`auth_failed`,
    /// `auth_rate_limited`).
    public var authFailed: @Sendable (_ reason: String) -> Void

    /// An observer of all four.
    public init(
        clientsChanged: @escaping @Sendable (_ delta: Int) -> Void, eventsDropped: @escaping @Sendable (_ count: UInt64) -> Void,
        webClientsChanged: @escaping @Sendable (_ delta: Int) -> Void = { _ in }, authFailed: @escaping @Sendable (_ reason: String) -> Void = { _ in }
    ) {
        self.clientsChanged = clientsChanged
        self.eventsDropped = eventsDropped
        self.webClientsChanged = webClientsChanged
        self.authFailed = authFailed
    }

    /// Observes nothing.
    public static let none = SocketServerObserver(clientsChanged: { _ in }, eventsDropped: { _ in })
}
