import Foundation
import Logging
import NIOCore
import NIOPosix
import PassTapCore
import PassTapTestNetwork
import PassTapTestSupport
import ServiceLifecycle
import Synchronization
import Testing

@testable import PassTapDaemon

/// The watchdog's health check and the systemd service that pings only when it passes, with an
/// event loop of its own that the test hangs, and a real datagram socket posing as systemd.
@Suite(.timeLimit(.minutes(1))) struct HealthCheckTests {
    /// One event loop the test can hang: a task on it waits until ``release()``.
    final class HangableLoop: Sendable {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        private let gate = DispatchSemaphore(value: 0)

        var loop: any EventLoop { group.next() }

        /// Blocks the loop's thread (the injected hang); returns once the loop is inside it.
        func hang() async {
            let inside = DispatchSemaphore(value: 0)
            loop.execute {
                inside.signal()
                self.gate.wait()
            }
            await withCheckedContinuation { continuation in
                Thread {
                    inside.wait()
                    continuation.resume()
                }.start()
            }
        }

        func release() { gate.signal() }

        func shutdown() async throws { try await group.shutdownGracefully() }
    }

    /// A supervisor round the test sets by hand.
    final class Rounds: Sendable {
        let last = Mutex<ContinuousClock.Instant?>(.now)
    }

    private func check(_ loop: HangableLoop, _ rounds: Rounds, startedAt: ContinuousClock.Instant = .now) -> HealthCheck {
        HealthCheck(
            eventLoops: [loop.loop], supervisorRound: { rounds.last.withLock { $0 } }, supervisorStallAfter: .seconds(3),
            startedAt: startedAt, answerWithin: .milliseconds(200))
    }

    @Test func passesWhenTheLoopAnswersAndTheSupervisorRuns() async throws {
        let loop = HangableLoop()
        let verdict = await check(loop, Rounds()).run()
        #expect(verdict.isHealthy, "\(verdict.problems)")
        try await loop.shutdown()
    }

    @Test func aHungEventLoopFailsTheCheckAndPassesAgainOnceFree() async throws {
        let loop = HangableLoop()
        await loop.hang()
        let hung = await check(loop, Rounds()).run()
        #expect(hung.problems == ["event loop 0 did not answer within 0.2 seconds"])
        loop.release()
        let free = await check(loop, Rounds()).run()
        #expect(free.isHealthy, "\(free.problems)")
        try await loop.shutdown()
    }

    @Test func aStalledOrMissingSupervisorFailsTheCheck() async throws {
        let loop = HangableLoop()
        let rounds = Rounds()
        rounds.last.withLock { $0 = .now - .seconds(10) }
        let stalled = await check(loop, rounds).run()
        #expect(stalled.problems.count == 1)
        #expect(stalled.problems.first?.hasPrefix("the reader supervisor's last round was") == true)
        rounds.last.withLock { $0 = nil }
        let missing = await check(loop, rounds, startedAt: .now - .seconds(10)).run()
        #expect(missing.problems.count == 1)
        #expect(missing.problems.first?.hasPrefix("the reader supervisor has made no round in the") == true, "\(missing.problems)")
        try await loop.shutdown()
    }

    /// The first check runs right after READY, usually before the supervisor's first round: that
    /// is no fault (it logged "health check failed" at every start) until the stall allowance passes.
    @Test func noRoundYetRightAfterStartPasses() async throws {
        let loop = HangableLoop()
        let rounds = Rounds()
        rounds.last.withLock { $0 = nil }
        let verdict = await check(loop, rounds).run()
        #expect(verdict.isHealthy, "\(verdict.problems)")
        try await loop.shutdown()
    }

    @Test func watchdogSettingsFollowTheEnvironment() {
        #expect(WatchdogSettings(environment: [:], pid: 42).timeout == nil)
        #expect(WatchdogSettings(environment: ["WATCHDOG_USEC": "30000000"], pid: 42).timeout == .seconds(30))
        #expect(WatchdogSettings(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], pid: 42).timeout == .seconds(30))
        // For another process (a child that inherited the variables): not ours to ping.
        #expect(WatchdogSettings(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 42).timeout == nil)
        #expect(WatchdogSettings(environment: ["WATCHDOG_USEC": "soon"], pid: 42).timeout == nil)
        #expect(WatchdogSettings(environment: ["WATCHDOG_USEC": "30000000"], pid: 42).checkInterval() == .seconds(15))
        #expect(WatchdogSettings(environment: [:], pid: 42).checkInterval(unwatched: .seconds(10)) == .seconds(10))
    }

    /// READY, then STATUS, then WATCHDOG only while healthy: none while the loop hangs, again once
    /// it is free; STOPPING when the graceful shutdown begins.
    @Test func pingsOnlyWhileHealthyInOrderFromReadyToStopping() async throws {
        let systemd = try NotifySocketListener()
        let loop = HangableLoop()
        await loop.hang()
        let verdicts = AsyncStream.makeStream(of: HealthCheck.Verdict.self)
        let record = HealthRecord()
        var logger = Logger(label: "passtap.test.health")
        logger.logLevel = .critical
        var service = SystemdService(
            notifier: SystemdNotifier(socket: NotifySocket(environment: ["NOTIFY_SOCKET": systemd.path])) {
                "0 readers (0 usable), 0 clients, no tap yet"
            },
            // The supervisor's round is always current here: only the loop's hang may fail a check
            // (a round fixed at the start went stale after 3 s on a loaded machine, and no check
            // could pass again).
            watchdog: WatchdogSettings(environment: ["WATCHDOG_USEC": "200000"], pid: getpid()),
            health: HealthCheck(
                eventLoops: [loop.loop], supervisorRound: { .now }, supervisorStallAfter: .seconds(3), answerWithin: .milliseconds(200)),
            record: record, logger: logger, ready: {})
        service.onCheck = { verdicts.continuation.yield($0) }
        let group = ServiceGroup(services: [service], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var checks = verdicts.stream.makeAsyncIterator()
            #expect(await systemd.next() == "READY=1")
            #expect(await systemd.next() == "STATUS=0 readers (0 usable), 0 clients, no tap yet")
            // Two failed checks while the loop hangs: no ping at all.
            #expect(await checks.next()?.isHealthy == false)
            #expect(await checks.next()?.isHealthy == false)
            #expect(systemd.drain() == [])
            #expect(record.lastHealthy == nil)
            loop.release()
            while await checks.next()?.isHealthy == false {}
            #expect(await systemd.next() == "WATCHDOG=1")
            #expect(record.lastHealthy != nil)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let rest = systemd.drain()
        #expect(rest.last == "STOPPING=1")
        #expect(Set(rest.dropLast()).isSubset(of: ["WATCHDOG=1"]), "\(rest)")
        try await loop.shutdown()
    }
}
