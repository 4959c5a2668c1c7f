import ForwardSettings
import Foundation
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing
@testable import PassTapForward

/// Reloads: a sink added starts from the next event, a changed one is made again with its cursor
/// kept, a removed one stops and its backlog is dropped, announced, after `removed_sink_keep_hours`.
@Suite(.timeLimit(.minutes(1))) struct ForwarderReloadTests {
    typealias Rig = ForwarderRig

    @Test func aReloadAddsChangesAndRemovesSinks() async throws {
        let rig = Rig([Rig.webhook("loyalty"), Rig.postgres("fleet")], scripts: ["fleet": [.hang]])
        try await rig.start(sinks: 2)
        let loyalty = await rig.sinks.sink("loyalty")
        let fleet = await rig.sinks.sink("fleet")
        await rig.publish()
        try await withDeadline("the first event delivered") { await rig.metrics.waitForDeliveries(1, to: "loyalty") }

        // loyalty now also takes reader.added; fleet goes; audit comes.
        await rig.reload(to: [Rig.webhook("loyalty", kinds: [.readResult, .readerAdded]), Rig.webhook("audit")])
        #expect(await rig.outbox.setSinksCalls == [["loyalty", "fleet"], ["loyalty", "audit"]])
        #expect(loyalty.shutdowns.values.count == 1 && fleet.shutdowns.values.count == 1)
        let newLoyalty = await rig.sinks.sink("loyalty", made: 2)
        let audit = await rig.sinks.sink("audit")
        #expect(newLoyalty.settings.kinds == [.readResult, .readerAdded])

        await rig.publish(.readerAdded)
        await rig.publish(.readResult)
        try await withDeadline("the new events delivered") {
            await rig.metrics.waitForDeliveries(3, to: "loyalty")
            await rig.metrics.waitForDeliveries(1, to: "audit")
        }
        // The changed sink kept its cursor (event 1 is not sent again); the new one starts with
        // the first event after the reload.
        #expect(newLoyalty.attemptedRows == [[2], [3]])
        #expect(audit.attemptedRows == [[3]])
        #expect(fleet.attemptedRows == [[1]])

        let status = await rig.forwarder.status()
        #expect(status.sinks.map(\.name) == ["loyalty", "audit", "fleet"])
        let removed = try #require(status.sinks.last)
        #expect(removed.state == .removed && removed.pending == 2 && removed.retryInMilliseconds == nil)
        #expect(removed.dropAt == RFC3339.string(from: rig.clock.date.addingTimeInterval(24 * 3600)))
        #expect(status.sinks.first?.delivered == 3)
        try await rig.stop()
    }

    @Test func aRemovedSinksBacklogIsDroppedAndAnnouncedAfterTheKeepHours() async throws {
        let rig = Rig([Rig.webhook("loyalty"), Rig.postgres("fleet")], scripts: ["fleet": [.hang]], keepHours: 2)
        try await rig.start(sinks: 2)
        await rig.publish()
        await rig.publish()
        try await withDeadline("loyalty's deliveries") { await rig.metrics.waitForDeliveries(2, to: "loyalty") }
        await rig.reload(to: [Rig.webhook("loyalty")], keepHours: 2)
        try await withDeadline("the expiry timer") { await rig.clock.waitForSleep(.seconds(7200)) }
        rig.clock.advance(by: .seconds(7199))
        #expect(rig.announced.values.isEmpty)
        #expect(await rig.status(of: "fleet")?.pending == 2)
        rig.clock.advance(by: .seconds(1))
        let announced = try await withDeadline("forward.dropped") { await rig.announced.wait(count: 1) }
        #expect(announced == [ForwardDropped(reason: .sinkRemoved, sink: "fleet", count: 2, firstID: "instance-1:1", lastID: "instance-1:2")])
        #expect(await rig.status(of: "fleet") == nil)
        let status = await rig.forwarder.status()
        #expect(status.dropped == 2)
        #expect(rig.metrics.calls.values.contains(.dropped(reason: .sinkRemoved, count: 2)))
        try await rig.stop()
    }

    @Test func anOutboxThatCannotBeOpenedIsShownAndTriedAgainOnTheNextReload() async throws {
        let rig = Rig([Rig.webhook("loyalty")], failingOpens: 1)
        try await rig.start(sinks: 0)
        _ = try await withDeadline("the start's attempt") { await rig.opens.wait(count: 1) }
        await rig.settled()
        // It failed; nothing runs, and status says why.
        let before = await rig.forwarder.status()
        #expect(!before.enabled && before.source == "till-3")
        #expect(before.sinks.map(\.name) == ["loyalty"])
        #expect(before.sinks.first?.lastError?.contains("disk I/O error") == true)
        // Health names the sink and the class only, never the path or the error's text.
        #expect(rig.forwarder.healthProblems() == ["forwarding to sink loyalty fails: outbox_unavailable (passtap forward status tells more)"])
        await #expect(throws: ForwardControlError.outboxUnavailable("cannot open /var/lib/passtap/outbox.sqlite: disk I/O error")) {
            try await rig.forwarder.retry(sink: "loyalty")
        }
        await rig.reload(to: [Rig.webhook("loyalty")])
        #expect(rig.opens.values.count == 2)
        _ = try await withDeadline("the sink made") { await rig.sinks.sink("loyalty") }
        let after = await rig.forwarder.status()
        #expect(after.enabled && after.sinks.first?.lastError == nil)
        #expect(rig.forwarder.healthProblems().isEmpty)
        try await rig.stop()
    }

    @Test func withoutASinkTheOutboxIsNotOpened() async throws {
        let rig = Rig([])
        try await rig.start(sinks: 0)
        await rig.reload(to: [])
        #expect(rig.opens.values.isEmpty)
        #expect(await rig.forwarder.status().enabled == false)
        // With no outbox, a name the config does not have is unknown.
        await #expect(throws: ForwardControlError.unknownSink("loyalty")) { try await rig.forwarder.retry(sink: "loyalty") }
        await #expect(throws: ForwardControlError.unknownSink("loyalty")) { try await rig.forwarder.drop(sink: "loyalty") }
        try await rig.stop()
    }
}
