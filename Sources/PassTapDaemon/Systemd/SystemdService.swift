import Foundation
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// systemd's watchdog as the environment sets it up (systemd.service(5), sd_watchdog_enabled(3)):
/// `$WATCHDOG_USEC`, for this process when `$WATCHDOG_PID` is unset or names it.
package struct WatchdogSettings: Sendable, Equatable {
    /// How long systemd waits for a `WATCHDOG=1`; `nil` when there is no watchdog.
    package var timeout: Duration?

    /// The settings of `environment` for the process `pid`.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        timeout = nil
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return }
        timeout = .microseconds(Int64(clamping: usec))
    }

    /// How often the health check runs: half the watchdog's timeout (sd_watchdog_enabled(3)
    /// advises pinging at half), or every `unwatched` without a watchdog, so `status` still has
    /// a recent check.
    package func checkInterval(unwatched: Duration = .seconds(10)) -> Duration {
        timeout.map { $0 / 2 } ?? unwatched
    }
}

/// When the daemon last passed its health check (``HealthCheck``), for `status`.
package final class HealthRecord: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    package init() {}

    /// When the last check passed; `nil` before the first.
    package var lastHealthy: ContinuousClock.Instant? { last.withLock { $0 } }

    func passed(at instant: ContinuousClock.Instant) {
        last.withLock { $0 = instant }
    }
}

/// Drives the daemon's side of systemd for the whole run (a `Service` in the daemon's group),
/// through its ``SystemdNotifier``:
/// - ``SystemdNotifier/ready()`` once `ready` returns (the socket listens and the backends have
///   started);
/// - every ``WatchdogSettings/checkInterval(unwatched:)``, the health check:
///   ``SystemdNotifier/watchdog()`` only when it passes (and a watchdog is set), and
///   ``SystemdNotifier/refreshStatus()``;
/// - ``SystemdNotifier/stopping()`` as soon as a graceful shutdown begins.
///
/// Without `$NOTIFY_SOCKET` it still runs the checks, for `status`.
package struct SystemdService: Service {
    let notifier: SystemdNotifier
    let watchdog: WatchdogSettings
    let health: HealthCheck
    let record: HealthRecord
    let ready: @Sendable () async throws -> Void
    let interval: Duration
    let logger: Logger
    /// Told every check's verdict, after its pings (tests wait on it).
    package var onCheck: (@Sendable (HealthCheck.Verdict) -> Void)?

    package init(
        notifier: SystemdNotifier, watchdog: WatchdogSettings, health: HealthCheck, record: HealthRecord, interval: Duration? = nil,
        logger: Logger, ready: @escaping @Sendable () async throws -> Void
    ) {
        self.notifier = notifier
        self.watchdog = watchdog
        self.health = health
        self.record = record
        self.interval = interval ?? watchdog.checkInterval()
        self.logger = logger
        self.ready = ready
    }

    package func run() async throws {
        try await withGracefulShutdownHandler {
            try await ready()
            // SIGTERM during start-up: STOPPING=1 went out already, and the notifier sends no
            // READY=1 after it.
            guard !Task.isShuttingDownGracefully else { return }
            notifier.ready()
            if let timeout = watchdog.timeout {
                logger.info("systemd watchdog on", metadata: ["watchdog.timeout": "\(timeout)", "watchdog.check_every": "\(interval)"])
            }
            var healthy = true
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                let verdict = await health.run()
                if verdict.isHealthy {
                    record.passed(at: .now)
                    if watchdog.timeout != nil { notifier.watchdog() }
                    if !healthy { logger.notice("health check passes again") }
                } else {
                    logger.error(
                        "health check failed; no watchdog ping", metadata: ["health.problems": "\(verdict.problems.joined(separator: "; "))"])
                }
                healthy = verdict.isHealthy
                notifier.refreshStatus()
                onCheck?(verdict)
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            }
        } onGracefulShutdown: {
            notifier.stopping()
        }
    }
}
