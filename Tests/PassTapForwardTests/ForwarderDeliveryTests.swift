import Foundation
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing
@testable import PassTapForward

/// Each sink's loop: order across retries, backoff and Retry-After on the injected clock, the
/// dead list, independence of sinks, a prompt stop. Every wait is for an event, with a deadline.
@Suite(.timeLimit(.minutes(1))) struct ForwarderDeliveryTests {
    typealias Rig = ForwarderRig

    @Test func retriesKeepTheOrderAndWaitTheBackoffOrALongerRetryAfter() async throws {
        let rig = Rig(
            [Rig.webhook("loyalty")],
            scripts: ["loyalty": [.answer(.retry(delivered: 0, after: nil, error: ForwardFailure(.httpStatus, "HTTP 503"))), .answer(.retry(delivered: 0, after: .seconds(10), error: ForwardFailure(.httpStatus, "HTTP 429")))]])
        try await rig.start(sinks: 1)
        let sink = await rig.sinks.sink("loyalty")
        for _ in 0..<3 { await rig.publish() }
        // Jitter at its top (all bits set): the first backoff is the whole 1 s.
        try await withDeadline("the first attempt and its backoff") { await rig.clock.waitForSleep(.seconds(1)) }
        #expect(sink.attemptedRows == [[1]])
        // Its last attempt failed and the events wait: broken, by class, until one gets through.
        #expect(rig.forwarder.brokenSinks().map { "\($0.sink) \($0.reason)" } == ["loyalty httpStatus"])
        rig.clock.advance(by: .seconds(1))
        _ = try await withDeadline("the second attempt") { await sink.attempts.wait(count: 2) }
        // Retry-After (10 s) is longer than the second backoff (2 s): it wins.
        try await withDeadline("the Retry-After wait") { await rig.clock.waitForSleep(.seconds(10)) }
        #expect(!rig.clock.pendingSleeps.contains(.seconds(2)))
        rig.clock.advance(by: .seconds(9))
        #expect(sink.attempts.values.count == 2)
        rig.clock.advance(by: .seconds(1))
        try await withDeadline("the rest delivered") { await rig.metrics.waitForDeliveries(3, to: "loyalty") }
        #expect(sink.attemptedRows == [[1], [1], [1], [2], [3]])
        let status = try #require(await rig.status(of: "loyalty"))
        #expect(status.delivered == 3 && status.pending == 0 && status.lastError == nil && status.retryInMilliseconds == nil)
        #expect(rig.forwarder.brokenSinks().isEmpty)
        try await rig.stop()
    }

    @Test func aPartialDeliveryMovesTheCursorByWhatWasDelivered() async throws {
        let rig = Rig([Rig.postgres("fleet")], scripts: ["fleet": [.answer(.retry(delivered: 2, after: nil, error: ForwardFailure(.connectionClosed, "connection reset")))]], batchLimit: 10)
        try await rig.start(sinks: 1)
        let sink = await rig.sinks.sink("fleet")
        // Once the loop found nothing and waits, three events come in one commit.
        _ = try await withDeadline("the first look") { await rig.outbox.batches.wait(count: 1) }
        for _ in 0..<3 { await rig.outbox.append(.readResult, at: rig.clock.date) }
        rig.forwarder.eventsCommitted()
        try await withDeadline("the backoff") { await rig.clock.waitForSleep(.seconds(1)) }
        rig.clock.advance(by: .seconds(1))
        _ = try await withDeadline("the retry") { await sink.attempts.wait(count: 2) }
        #expect(sink.attemptedRows == [[1, 2, 3], [3]])
        try await rig.stop()
    }

    @Test func oneSinksOutageDoesNotHoldAnotherBack() async throws {
        let rig = Rig([Rig.webhook("loyalty"), Rig.postgres("fleet")], scripts: ["loyalty": [.hang]])
        try await rig.start(sinks: 2)
        let loyalty = await rig.sinks.sink("loyalty")
        let fleet = await rig.sinks.sink("fleet")
        for _ in 0..<4 { await rig.publish() }
        _ = try await withDeadline("fleet delivers everything") { await fleet.attempts.wait(count: 4) }
        #expect(fleet.attemptedRows == [[1], [2], [3], [4]])
        #expect(loyalty.attemptedRows == [[1]])
        // The stop ends the hanging delivery through the sink's shutdown.
        try await rig.stop()
        #expect(loyalty.shutdowns.values.count == 1 && fleet.shutdowns.values.count == 1)
        #expect(await rig.status(of: "loyalty")?.pending == 4)
    }

    @Test func aRefusedEventGoesToTheDeadListAndTheNextFollowsAtOnce() async throws {
        let rig = Rig([Rig.webhook("loyalty")], scripts: ["loyalty": [.answer(.dead(delivered: 0, error: ForwardFailure(.httpStatus, "HTTP 400")))]])
        try await rig.start(sinks: 1)
        let sink = await rig.sinks.sink("loyalty")
        await rig.publish()
        _ = try await withDeadline("the refusal") { await sink.attempts.wait(count: 1) }
        _ = try await withDeadline("the dead list") {
            await rig.metrics.calls.wait { $0.contains(.dead(sink: "loyalty")) }
        }
        var status = try #require(await rig.status(of: "loyalty"))
        #expect(status.dead == 1 && status.pending == 0 && status.lastError == "HTTP 400" && status.lastErrorReason == .httpStatus)
        // The receiver answered: a refusal for good breaks nothing.
        #expect(rig.forwarder.brokenSinks().isEmpty)
        await rig.publish()
        // No backoff: the next event goes without the clock moving.
        _ = try await withDeadline("the next event") { await sink.attempts.wait(count: 2) }
        #expect(sink.attemptedRows == [[1], [2]])
        try await withDeadline("its delivery recorded") { await rig.metrics.waitForDeliveries(1, to: "loyalty") }
        status = try #require(await rig.status(of: "loyalty"))
        #expect(status.dead == 1 && status.delivered == 1 && status.lastError == nil)
        try await rig.stop()
    }

    @Test func theStopIsPromptWhileASinkWaitsItsBackoff() async throws {
        let rig = Rig([Rig.webhook("loyalty"), Rig.postgres("fleet")], scripts: ["loyalty": [.answer(.retry(delivered: 0, after: .seconds(3600), error: ForwardFailure(.httpStatus, "HTTP 503")))]])
        try await rig.start(sinks: 2)
        let loyalty = await rig.sinks.sink("loyalty")
        let fleet = await rig.sinks.sink("fleet")
        await rig.publish()
        try await withDeadline("the hour's wait") { await rig.clock.waitForSleep(.seconds(3600)) }
        // The clock never moves: the stop must not wait for it.
        try await rig.stop()
        #expect(loyalty.shutdowns.values.count == 1 && fleet.shutdowns.values.count == 1)
        #expect(loyalty.attempts.values.count == 1)
    }

    @Test func deliveriesRetriesAndBacklogsReachTheMetrics() async throws {
        let rig = Rig([Rig.webhook("loyalty")], scripts: ["loyalty": [.answer(.retry(delivered: 0, after: nil, error: ForwardFailure(.httpStatus, "HTTP 502")))]])
        try await rig.start(sinks: 1)
        let sink = await rig.sinks.sink("loyalty")
        await rig.publish()
        try await withDeadline("the backoff") { await rig.clock.waitForSleep(.seconds(1)) }
        #expect(rig.metrics.calls.values.contains(.retried(sink: "loyalty")))
        // The event waits 1 s for the backoff (at the jitter's top): its latency is 1 s.
        rig.clock.advance(by: .seconds(1))
        try await withDeadline("the delivery") { await rig.metrics.waitForDeliveries(1, to: "loyalty") }
        #expect(sink.attempts.values.count == 2)
        #expect(rig.metrics.calls.values.contains(.delivered(sink: "loyalty", latencies: [.seconds(1)])))
        _ = try await withDeadline("an empty backlog after the batch") {
            await rig.metrics.backlogs.wait { $0.last == [ForwardBacklog(sink: "loyalty", pending: 0, oldestPendingAge: .zero)] }
        }
        try await rig.stop()
    }
}
