import ForwardSettings
import Foundation
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing
@testable import PassTapForward

/// `forward.status`, `forward.retry` and `forward.drop` as the forwarder answers them.
@Suite(.timeLimit(.minutes(1))) struct ForwarderControlTests {
    typealias Rig = ForwarderRig

    @Test func statusMergesTheOutboxWithTheRetryState() async throws {
        let rig = Rig([Rig.webhook("loyalty")], scripts: ["loyalty": [.answer(.retry(delivered: 0, after: .seconds(60), error: ForwardFailure(.httpStatus, "HTTP 503")))]])
        try await rig.start(sinks: 1)
        await rig.publish()
        try await withDeadline("the Retry-After wait") { await rig.clock.waitForSleep(.seconds(60)) }
        rig.clock.advance(by: .seconds(15))
        let status = await rig.forwarder.status()
        #expect(status.enabled && status.source == "till-3" && status.maxPendingBytes == Configuration.Forward().maxPendingBytes)
        #expect(status.pendingBytes == #"{"kind":"read.result","seq":1}"#.utf8.count)
        #expect(
            status.sinks == [
                ForwardSinkStatus(
                    name: "loyalty", type: .webhook, state: .active, pending: 1, oldestPendingAgeMilliseconds: 15000, dead: 0, delivered: 0,
                    lastError: "HTTP 503", lastErrorReason: .httpStatus, retryInMilliseconds: 45000, dropAt: nil)
            ])
        try await rig.stop()
    }

    @Test func retryQueuesTheDeadAgainAndWakesTheSink() async throws {
        let rig = Rig([Rig.webhook("loyalty")], scripts: ["loyalty": [.answer(.dead(delivered: 0, error: ForwardFailure(.httpStatus, "HTTP 400")))]])
        try await rig.start(sinks: 1)
        let sink = await rig.sinks.sink("loyalty")
        await rig.publish()
        _ = try await withDeadline("the dead list") { await rig.metrics.calls.wait { $0.contains(.dead(sink: "loyalty")) } }
        let result = try await rig.forwarder.retry(sink: "loyalty")
        #expect(result == ForwardRetryResult(sink: "loyalty", requeued: 1))
        try await withDeadline("the event sent again") { await rig.metrics.waitForDeliveries(1, to: "loyalty") }
        #expect(sink.attemptedRows == [[1], [1]])
        #expect(await rig.status(of: "loyalty")?.dead == 0)
        await #expect(throws: ForwardControlError.unknownSink("nope")) { try await rig.forwarder.retry(sink: "nope") }
        await #expect(throws: ForwardControlError.unknownSink("nope")) { try await rig.forwarder.drop(sink: "nope") }
        try await rig.stop()
    }

    @Test func dropAnnouncesTheBacklogAndCutsTheBackoffShort() async throws {
        let rig = Rig([Rig.webhook("loyalty")], scripts: ["loyalty": [.answer(.retry(delivered: 0, after: .seconds(600), error: ForwardFailure(.httpStatus, "HTTP 503")))]])
        try await rig.start(sinks: 1)
        let sink = await rig.sinks.sink("loyalty")
        for _ in 0..<3 { await rig.publish() }
        try await withDeadline("the wait") { await rig.clock.waitForSleep(.seconds(600)) }
        #expect(rig.forwarder.brokenSinks().map(\.sink) == ["loyalty"])
        let result = try await rig.forwarder.drop(sink: "loyalty")
        #expect(result == ForwardDropResult(sink: "loyalty", dropped: 3))
        #expect(rig.announced.values == [ForwardDropped(reason: .requested, sink: "loyalty", count: 3, firstID: "instance-1:1", lastID: "instance-1:3")])
        // The clock never moves: the next event goes at once.
        await rig.publish()
        try await withDeadline("the next event") { await rig.metrics.waitForDeliveries(1, to: "loyalty") }
        #expect(sink.attemptedRows == [[1], [4]])
        let status = await rig.forwarder.status()
        #expect(status.dropped == 3 && status.sinks.first?.pending == 0)
        // Nothing is left to deliver: the sink recovered.
        #expect(rig.forwarder.brokenSinks().isEmpty)
        #expect(try #require(await rig.forward(dropTwice: "loyalty")) == 0)
        try await rig.stop()
    }
}

extension ForwarderRig {
    /// Drops `sink`'s backlog once more (nothing left): returns the count, and checks nothing is announced.
    func forward(dropTwice sink: String) async throws -> Int? {
        let before = announced.values.count
        let result = try await forwarder.drop(sink: sink)
        return announced.values.count == before ? result.dropped : nil
    }
}
