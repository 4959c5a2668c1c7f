import Foundation
public import Logging
import Synchronization

/// Watches every reader's thread from a thread of its own (`reader-watch`), through each
/// backend's ``ReaderRegistry``: a thread busy in one call to its reader for longer than a tap's
/// budget plus its backend's transport timeout is stuck, and the registry restarts the reader on a
/// new thread (`reader.removed` says why, `reader.added`
/// follows). A slow card stays within that allowance: the session ends itself at its budget, and
/// each exchange at its transport's timeout.
///
/// Each round notes the time it ran (``lastRound``): the daemon's health check counts the
/// supervisor as running while its rounds keep coming.
public final class ReaderSupervisor: Sendable {
    private struct State {
        var lastRound: ContinuousClock.Instant?
        var restarts = 0
        /// Stuck slots whose restart was declined last round (logged once).
        var declined: Set<ObjectIdentifier> = []
    }

    private let backends: ReaderBackends
    private let period: Duration
    private let live: LiveConfiguration
    private let logger: Logger
    private let state = Mutex(State())
    private let wait = StoppableWait()
    private let threads = ReaderThreads()

    /// A supervisor of `backends`' readers, looking every `period`.
    /// - Parameters:
    ///   - live: where a tap's budget comes from (`[session] budget_ms`; read every round, so a
    ///     reload applies).
    public init(backends: ReaderBackends, period: Duration = .seconds(1), live: LiveConfiguration, logger: Logger) {
        self.backends = backends
        self.period = period
        self.live = live
        self.logger = logger
    }

    /// When the last round ended; `nil` before the first.
    public var lastRound: ContinuousClock.Instant? { state.withLock { $0.lastRound } }

    /// How long one round may be late before the supervisor counts as stalled: three periods.
    public var stallAfter: Duration { period * 3 }

    /// How many readers it restarted.
    public var restarts: Int { state.withLock { $0.restarts } }

    /// Starts the supervisor's thread.
    public func start() {
        threads.spawn(name: "reader-watch") { [self] in
            while !wait.isStopped {
                round(at: .now)
                wait.pause(for: period)
            }
        }
    }

    /// Stops the thread and waits for it, at most `deadline`.
    public func stop(deadline: Duration = .seconds(1)) async {
        wait.stop()
        _ = await threads.allExited(within: deadline)
    }

    /// One look at every reader; restarts the stuck ones. Runs on the supervisor's thread.
    func round(at now: ContinuousClock.Instant) {
        let budget = Duration.milliseconds(live.current.sessionBudgetMilliseconds)
        var stuckNow: Set<ObjectIdentifier> = []
        for registry in backends.registries {
            let allowance = budget + registry.transportTimeout
            for slot in registry.slots {
                guard let stuck = slot.stuckCall(at: now, allowance: allowance) else { continue }
                let reason =
                    "its thread was stuck in \(stuck.call.activity) for \(Self.seconds(stuck.duration)) s (allowed \(Self.seconds(allowance)) s: the session budget plus the transport timeout); passtapd restarts the reader"
                if registry.restart(slot, because: reason) {
                    logger.error("Reader thread stuck; restarted the reader", metadata: ["reader.id": "\(slot.id)", "reason": "\(reason)"])
                    state.withLock { $0.restarts += 1 }
                } else {
                    // Once per stuck thread: a reader whose earlier stuck thread still runs is not
                    // restarted again (no pile of threads for a card that never answers).
                    stuckNow.insert(ObjectIdentifier(slot))
                    if !state.withLock({ $0.declined.contains(ObjectIdentifier(slot)) }) {
                        logger.error(
                            "Reader thread stuck again while an earlier one is; not restarted until that one ends",
                            metadata: ["reader.id": "\(slot.id)", "reason": "\(reason)"])
                    }
                }
            }
        }
        state.withLock {
            $0.declined = stuckNow
            $0.lastRound = .now
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return String(format: "%.1f", Double(milliseconds) / 1000)
    }
}
