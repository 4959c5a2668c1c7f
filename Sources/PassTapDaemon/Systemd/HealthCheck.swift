import Foundation
import NIOCore
import PassTapCore
import Synchronization

/// The daemon's health, as the watchdog sees it: every event loop of the socket server answers,
/// and the reader supervisor keeps making its rounds. A slow card does not count: it holds one
/// reader's thread, never an event loop or the supervisor, and the supervisor restarts a reader
/// stuck past its allowance.
///
/// Only a check that passes may lead to `WATCHDOG=1` (``SystemdService``), so a hung event loop or
/// supervisor stops the pings and systemd restarts the daemon.
package struct HealthCheck: Sendable {
    /// What one check found.
    package struct Verdict: Sendable, Equatable {
        /// What is wrong, one sentence each; empty when healthy.
        package var problems: [String]
        /// Whether nothing is wrong.
        package var isHealthy: Bool { problems.isEmpty }
    }

    /// The event loops that must answer (the socket server's).
    let eventLoops: [any EventLoop]
    /// When the supervisor's last round ended, and how late it may be.
    let supervisorRound: @Sendable () -> ContinuousClock.Instant?
    let supervisorStallAfter: Duration
    /// When the daemon started: before the supervisor's first round, it is late only once
    /// ``supervisorStallAfter`` has passed since then (the first check runs right after READY).
    let startedAt: ContinuousClock.Instant
    /// How long an event loop has to run a no-op.
    let answerWithin: Duration

    /// A check of `eventLoops` and `supervisor`.
    package init(eventLoops: any EventLoopGroup, supervisor: ReaderSupervisor, answerWithin: Duration = .seconds(2)) {
        self.init(
            eventLoops: Array(eventLoops.makeIterator()), supervisorRound: { supervisor.lastRound },
            supervisorStallAfter: supervisor.stallAfter, answerWithin: answerWithin)
    }

    /// A check of each part as given (tests pass a supervisor's round of their own).
    package init(
        eventLoops: [any EventLoop], supervisorRound: @escaping @Sendable () -> ContinuousClock.Instant?, supervisorStallAfter: Duration,
        startedAt: ContinuousClock.Instant = .now, answerWithin: Duration
    ) {
        self.eventLoops = eventLoops
        self.supervisorRound = supervisorRound
        self.supervisorStallAfter = supervisorStallAfter
        self.startedAt = startedAt
        self.answerWithin = answerWithin
    }

    /// Runs the check. Never waits longer than ``answerWithin`` for an event loop, hung or not.
    package func run() async -> Verdict {
        var problems: [String] = []
        for (index, loop) in eventLoops.enumerated() where !(await Self.answers(loop, within: answerWithin)) {
            problems.append("event loop \(index) did not answer within \(answerWithin)")
        }
        let now = ContinuousClock.now
        if let round = supervisorRound() {
            let late = round.duration(to: now)
            if late > supervisorStallAfter { problems.append("the reader supervisor's last round was \(late) ago") }
        } else if startedAt.duration(to: now) > supervisorStallAfter {
            problems.append("the reader supervisor has made no round in the \(startedAt.duration(to: now)) since start")
        }
        return Verdict(problems: problems)
    }

    /// Whether `loop` runs a no-op within `limit`. A hung loop's future is left behind: the
    /// continuation is resumed once, by whichever comes first.
    private static func answers(_ loop: any EventLoop, within limit: Duration) async -> Bool {
        let once = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            once.withLock { $0 = continuation }
            let resume: @Sendable (Bool) -> Void = { answered in once.withLock { $0.take() }?.resume(returning: answered) }
            loop.submit {}.whenComplete { result in resume((try? result.get()) != nil) }
            Task {
                try? await Task.sleep(for: limit)
                resume(false)
            }
        }
    }
}
