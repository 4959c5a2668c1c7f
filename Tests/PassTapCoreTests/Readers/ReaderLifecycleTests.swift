import Foundation
import ISO7816
import Logging
@testable import PassTapCore
import Synchronization
import PassTapTestSupport
import Testing

/// The shared reader lifecycle, with the fake reader in a ``ReaderRegistry`` (as a backend's
/// discovery hands it its readers): arrival, session, queued requests, removal, cancel, stop,
/// restart and event order. Every wait has a time limit.
@Suite(.timeLimit(.minutes(1))) struct ReaderLifecycleTests {
    let reader = ReaderID(backend: ReaderID.Backend(rawValue: "fake"), name: "Fake Reader 0")
    let world = FakeReaderWorld()
    let events = EventRecorder()
    private let started = StartedRegistry()

    /// The registry the test started; call ``start(_:backoff:)`` first.
    private var registry: ReaderRegistry { started.registry }

    /// Hands the fake reader to a new registry and returns its slot once `reader.added` is out.
    @discardableResult
    private func start(_ handler: any TapHandler, backoff: ReaderLifecycle.Backoff = .init(first: 0.001, last: 0.004)) async throws -> ReaderSlot {
        var logger = Logger(label: "passtap.test.lifecycle")
        logger.logLevel = .critical
        let registry = ReaderRegistry(
            backend: reader.backend, transportTimeout: .seconds(5), tapHandler: handler, events: events.sink, backoff: backoff, logger: logger)
        started.registry = registry
        let world = self.world
        registry.reconcile([ReaderEntry(id: reader, address: "fake") { FakeReaderPort(world: world) }])
        try await events.wait(for: .readerAdded)
        return try #require(registry.slot(for: reader))
    }

    private func stop() async {
        #expect(await registry.shutdown(deadline: .seconds(10)))
    }

    private static let select = CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: [0xA0, 0x00, 0x00, 0x00, 0x04])

    @Test func aTapPublishesInsertedRunsTheSessionAndRemovalPublishesRemoved() async throws {
        let handler = GatedTapHandler()
        let slot = try await start(handler)
        world.insert()
        try await events.wait(for: .cardInserted)
        #expect(slot.info.state == .present)
        world.remove()
        try await events.wait(for: .cardRemoved)
        #expect(handler.taps.map(\.uid) == ["04A1B2C3"])
        #expect(slot.info.state == .empty)
        #expect(world.state.withLock { $0.endedTaps } == [false])
        await stop()
        #expect(events.kinds == [.readerAdded, .cardInserted, .cardRemoved, .readerRemoved])
    }

    @Test func requestsQueuedDuringTheSessionAreServedAfterItInOrder() async throws {
        let handler = GatedTapHandler(holding: true)
        let slot = try await start(handler)
        world.insert()
        try await events.wait(for: .cardInserted)
        async let first = slot.transmit(Self.select, raw: true)
        try await waitUntil("the first request to queue", seconds: 10) { slot.queuedCount == 1 }
        async let second = slot.transmit(CommandAPDU(cla: 0x80, ins: 0xCA, p1: 0x01, p2: 0x00, data: []), raw: true)
        try await waitUntil("the second request to queue", seconds: 10) { slot.queuedCount == 2 }
        #expect(world.state.withLock { $0.received }.isEmpty)
        handler.release()
        #expect(try await first.data == [0xA4])
        #expect(try await second.data == [0xCA])
        #expect(world.state.withLock { $0.received.map { $0[1] } } == [0xA4, 0xCA])
        await stop()
    }

    @Test func aRequestWakesTheReaderInsteadOfWaitingForTheSliceToEnd() async throws {
        // The fake's wait slice is a minute: only the wake verb can get the request served.
        let slot = try await start(GatedTapHandler())
        world.insert()
        try await events.wait(for: .cardInserted)
        let wakesBefore = world.state.withLock { $0.wakes }
        let answer = try await withDeadline("the woken reader's answer", seconds: 10) { try await slot.transmit(Self.select, raw: false) }
        #expect(answer.statusWord == .success)
        #expect(world.state.withLock { $0.wakes } == wakesBefore + 1)
        await stop()
    }

    @Test func aRequestWithoutACardOrAfterStopIsAnsweredAtOnce() async throws {
        let slot = try await start(GatedTapHandler())
        await #expect(throws: ReaderCommandError.noCard(reader)) { try await slot.transmit(Self.select, raw: true) }
        await stop()
        await #expect(throws: ReaderCommandError.shuttingDown) { try await slot.transmit(Self.select, raw: true) }
    }

    @Test func aJobRunsOnTheReaderThreadWithoutACardAndAfterTheSessionWithTheCardsChannel() async throws {
        let handler = GatedTapHandler(holding: true)
        let slot = try await start(handler)
        // No card: the woken thread runs it between waits, with no card channel.
        let idle = try await withDeadline("a job without a card", seconds: 10) {
            try await slot.perform { access in (access.reader, access.channel == nil, Thread.current.name ?? "") }
        }
        #expect(idle.0 == reader)
        #expect(idle.1)
        #expect(idle.2 != "" && !Thread.isMainThread)
        // During a session: queued behind it, then run with the card's channel.
        world.insert()
        try await events.wait(for: .cardInserted)
        try await waitUntil("the session to start", seconds: 10) { handler.isInside }
        async let during = slot.perform { access in (access.channel != nil, !handler.isInside) }
        handler.release()
        let (withChannel, afterSession) = try await during
        #expect(withChannel)
        #expect(afterSession, "the job ran during the session")
        await stop()
        await #expect(throws: ReaderCommandError.shuttingDown) { try await slot.perform { _ in true } }
    }

    @Test func aCancelledRequestLeavesTheQueueAtOnceAndNeverReachesTheCard() async throws {
        let handler = GatedTapHandler(holding: true)
        let slot = try await start(handler)
        world.insert()
        try await events.wait(for: .cardInserted)
        let request = Task { try await slot.transmit(Self.select, raw: true) }
        try await waitUntil("the request to queue", seconds: 10) { slot.queuedCount == 1 }
        request.cancel()
        await #expect(throws: ReaderCommandError.cancelled) { try await request.value }
        #expect(slot.queuedCount == 0)
        handler.release()
        world.remove()
        try await events.wait(for: .cardRemoved)
        #expect(world.state.withLock { $0.received }.isEmpty)
        await stop()
    }

    @Test func aTaskCancelledBeforeItsRequestIsQueuedIsRefused() async throws {
        let slot = try await start(GatedTapHandler(holding: true))
        world.insert()
        try await events.wait(for: .cardInserted)
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await slot.transmit(Self.select, raw: true)
        }
        await #expect(throws: ReaderCommandError.cancelled) { try await request.value }
        #expect(slot.queuedCount == 0)
        registry.stop()
    }

    @Test func stopAnswersQueuedRequestsAtOnceEvenWithTheThreadStuckInASession() async throws {
        let handler = GatedTapHandler(holding: true)
        let slot = try await start(handler)
        world.insert()
        try await events.wait(for: .cardInserted)
        let request = Task { try await slot.transmit(Self.select, raw: true) }
        try await waitUntil("the request to queue", seconds: 10) { slot.queuedCount == 1 }
        registry.stop()
        await #expect(throws: ReaderCommandError.shuttingDown) { try await request.value }
        #expect(handler.isInside)
        #expect(!(await registry.waitForThreads(within: .milliseconds(50))))
        handler.release()
        #expect(await registry.waitForThreads(within: .seconds(10)))
        // The card was still in the field: the backend is told to reset it.
        #expect(world.state.withLock { $0.endedTaps } == [true])
        #expect(events.kinds == [.readerAdded, .cardInserted, .cardRemoved, .readerRemoved])
    }

    @Test func aReaderStoppedBecauseItWasRemovedAnswersUnavailableWithTheReasonNotShuttingDown() async throws {
        let handler = GatedTapHandler(holding: true)
        let slot = try await start(handler)
        world.insert()
        try await events.wait(for: .cardInserted)
        let request = Task { try await slot.transmit(Self.select, raw: true) }
        try await waitUntil("the request to queue", seconds: 10) { slot.queuedCount == 1 }
        // The discovery no longer lists it.
        registry.reconcile([])
        #expect(registry.readers().isEmpty)
        await #expect(throws: ReaderCommandError.readerUnavailable(reader, reason: "the reader was removed")) { try await request.value }
        handler.release()
        #expect(await registry.waitForThreads(within: .seconds(10)))
        guard case .reader(let info) = events.payloads.last else {
            Issue.record("reader.removed carries no reader")
            return
        }
        #expect(info.reason == "the reader was removed")
        await #expect(throws: ReaderCommandError.readerUnavailable(reader, reason: "the reader was removed")) {
            try await slot.transmit(Self.select, raw: true)
        }
    }

    @Test func aReaderHeldOnEveryConnectStaysUnavailableWithoutFlickering() async throws {
        // PC/SC: the context opens fine, and the sharing violation comes at every connect.
        world.change { $0.persistentFault = ReaderFault(.inUse, "held") }
        try await start(GatedTapHandler(), backoff: .init(first: 0.001, last: 0.001))
        try await waitUntil("20 reopens", seconds: 10) { world.state.withLock { $0.opens } >= 20 }
        let states: [ReaderInfo.State] = events.payloads.compactMap { if case .reader(let info) = $0 { return info.state } else { return nil } }
        #expect(states == [.empty, .unavailable], "\(states)")
        world.change { $0.persistentFault = nil }
        world.insert()
        try await events.wait(for: .cardInserted)
        // Unavailable once, usable once: no event per retry.
        #expect(events.kinds.filter { $0 == .readerChanged }.count == 2)
        await stop()
    }

    @Test func aReaderGoneWithACardInTheFieldPublishesCardRemovedThenReaderRemovedLast() async throws {
        try await start(GatedTapHandler())
        world.insert()
        try await events.wait(for: .cardInserted)
        world.change { $0.waitFault = ReaderFault(.gone, "unplugged") }
        #expect(await registry.waitForThreads(within: .seconds(10)))
        #expect(registry.readers().isEmpty)
        #expect(events.kinds == [.readerAdded, .cardInserted, .cardRemoved, .readerRemoved])
        guard case .reader(let info) = events.payloads.last else {
            Issue.record("reader.removed carries no reader")
            return
        }
        #expect(info.state == .unavailable)
        #expect(info.reason == "unplugged")
    }

    @Test func aReaderThatFailsIsReopenedWithBackoffAndSaysWhyMeanwhile() async throws {
        world.change { $0.openFaults = [ReaderFault(.failed, "driver error 1"), ReaderFault(.failed, "driver error 2")] }
        try await start(GatedTapHandler())
        try await events.waitForKinds("usable again") { $0.filter { $0 == .readerChanged }.count >= 3 }
        #expect(world.state.withLock { $0.opens } == 3)
        let changes: [ReaderInfo] = events.payloads.compactMap { if case .reader(let info) = $0 { return info } else { return nil } }
        // reader.added; unavailable with the first reason (the second failure changes only the
        // reason, and is published too); then usable again.
        #expect(events.kinds == [.readerAdded, .readerChanged, .readerChanged, .readerChanged])
        #expect(changes[1].state == .unavailable && changes[1].reason == "driver error 1")
        #expect(changes[2].state == .unavailable && changes[2].reason == "driver error 2")
        #expect(changes[3].state == .empty && changes[3].reason == nil)
        // And it reads cards again.
        world.insert()
        try await events.wait(for: .cardInserted)
        await stop()
    }

    @Test func aReaderThatFailsMidWaitIsRestartedAndReadsAgain() async throws {
        try await start(GatedTapHandler())
        world.change { $0.waitFault = ReaderFault(.failed, "SCardGetStatusChange failed") }
        try await events.wait(for: .readerChanged, count: 2)
        #expect(world.state.withLock { $0.opens } == 2)
        world.insert()
        try await events.wait(for: .cardInserted)
        await stop()
    }

    @Test func aReaderHeldByAnotherProcessIsUnavailableWithTheReasonUntilFree() async throws {
        world.change { $0.openFaults = [ReaderFault(.inUse, "another process holds the reader exclusively")] }
        let slot = try await start(GatedTapHandler())
        try await events.wait(for: .readerChanged, count: 2)
        let changes: [ReaderInfo] = events.payloads.compactMap { if case .reader(let info) = $0 { return info } else { return nil } }
        #expect(changes[1].state == .unavailable)
        #expect(changes[1].reason == "another process holds the reader exclusively")
        #expect(slot.info.state == .empty && slot.info.reason == nil)
        await stop()
    }

    @Test func requestsToAnUnavailableReaderSayWhy() async throws {
        world.change { $0.openFaults = Array(repeating: ReaderFault(.inUse, "held by pcsc_scan"), count: 1000) }
        let slot = try await start(GatedTapHandler(), backoff: .init(first: 0.05, last: 0.05))
        try await events.wait(for: .readerChanged)
        await #expect(throws: ReaderCommandError.readerUnavailable(reader, reason: "held by pcsc_scan")) {
            try await slot.transmit(Self.select, raw: true)
        }
        await stop()
    }

    @Test func aCardPresentedAgainIsANewTap() async throws {
        let handler = GatedTapHandler()
        try await start(handler)
        world.insert()
        try await events.wait(for: .cardInserted)
        world.remove()
        world.insert()
        try await events.wait(for: .cardInserted, count: 2)
        await stop()
        #expect(handler.taps.count == 2)
        #expect(events.kinds == [.readerAdded, .cardInserted, .cardRemoved, .cardInserted, .cardRemoved, .readerRemoved])
    }

    @Test func aCommandLongerThanTheChannelCarriesIsRefusedBeforeItIsSent() async throws {
        let slot = try await start(GatedTapHandler())
        world.insert()
        try await events.wait(for: .cardInserted)
        let long = CommandAPDU(cla: 0x00, ins: 0xD6, p1: 0, p2: 0, data: Array(repeating: 0x55, count: 300))
        let error = await #expect(throws: ReaderCommandError.self) { try await slot.transmit(long, raw: true) }
        guard case .transport(let transport)? = error else {
            Issue.record("not a transport error: \(String(describing: error))")
            return
        }
        #expect(transport.code == .commandTooLong)
        #expect(world.state.withLock { $0.received }.isEmpty)
        await stop()
    }

}

/// The registry a lifecycle test started.
private final class StartedRegistry: Sendable {
    private let current = Mutex<ReaderRegistry?>(nil)

    var registry: ReaderRegistry {
        get { current.withLock { $0! } }
        set { current.withLock { $0 = newValue } }
    }
}

/// What the reader supervisor reads off a slot, and what abandoning one does.
@Suite struct ReaderSlotSupervisionTests {
    let world = FakeReaderWorld()

    @Test func aCallIsStuckOnlyPastItsAllowance() throws {
        let slot = ReaderSlot(id: ReaderID(backend: ReaderID.Backend(rawValue: "fake"), name: "R"), port: FakeReaderPort(world: world))
        let start = ContinuousClock.now
        #expect(slot.stuckCall(at: start + .seconds(60), allowance: .seconds(1)) == nil)
        let seen = Mutex<[(ReaderCall, Duration)?]>([])
        slot.busy(.session) {
            seen.withLock {
                $0.append(slot.stuckCall(at: .now, allowance: .seconds(1)).map { ($0.call, $0.duration) })
                $0.append(slot.stuckCall(at: .now + .seconds(2), allowance: .seconds(1)).map { ($0.call, $0.duration) })
            }
        }
        let found = seen.withLock { $0 }
        #expect(found[0] == nil)
        #expect(found[1]?.0 == .session)
        #expect((found[1]?.1 ?? .zero) > .seconds(1))
        #expect(slot.stuckCall(at: .now + .seconds(60), allowance: .seconds(1)) == nil)
    }

    @Test func anAbandonedSlotPublishesItsRemovalOnceAndNothingAfter() {
        let events = EventRecorder()
        let slot = ReaderSlot(id: ReaderID(backend: ReaderID.Backend(rawValue: "fake"), name: "R"), port: FakeReaderPort(world: world))
        #expect(slot.abandon(because: "stuck", events: events.sink))
        #expect(!slot.abandon(because: "stuck again", events: events.sink))
        slot.publish(events.sink, .cardRemoved, .cardRemoved)
        #expect(events.kinds == [.readerRemoved])
        #expect(slot.info.state == .unavailable && slot.info.reason == "stuck")
        #expect(slot.isStopping && slot.isAbandoned)
        #expect(world.state.withLock { $0.stopped })
    }
}
