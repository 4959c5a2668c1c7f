import Foundation
import Logging
@testable import PassTapCore
import PassTapTestSupport
import Synchronization
import Testing

/// The one table of a backend's readers, with fake readers handed in as a discovery would: which
/// readers run, when a reader that left or ended starts again, the restart of a stuck reader, the
/// backend's events, and a prompt stop. Every wait has a time limit.
@Suite(.timeLimit(.minutes(1))) struct ReaderRegistryTests {
    let reader = ReaderID(backend: ReaderID.Backend(rawValue: "fake"), name: "Fake Reader 0")
    let events = EventRecorder()
    /// The worlds of the ports the registry makes, one per run of the reader's thread, in order;
    /// the last one serves every later run.
    let worlds = [FakeReaderWorld(), FakeReaderWorld()]
    private let portsMade = PortCount()

    /// How many ports the registry made.
    final class PortCount: Sendable {
        let made = Mutex(0)
    }

    private func registry(_ handler: any TapHandler = GatedTapHandler(), restartBackoff: ReaderLifecycle.Backoff = .init(first: 0, last: 0))
        -> ReaderRegistry
    {
        var logger = Logger(label: "passtap.test.registry")
        logger.logLevel = .critical
        return ReaderRegistry(
            backend: reader.backend, transportTimeout: .seconds(5), tapHandler: handler, events: events.sink,
            backoff: .init(first: 0.001, last: 0.004), restartBackoff: restartBackoff, logger: logger)
    }

    private func entry(address: String = "here") -> ReaderEntry {
        let worlds = self.worlds
        let portsMade = self.portsMade
        return ReaderEntry(id: reader, address: address) {
            let index = portsMade.made.withLock { made in
                defer { made += 1 }
                return min(made, worlds.count - 1)
            }
            return FakeReaderPort(world: worlds[index])
        }
    }

    @Test func aReaderThatLeftIsStoppedAndOneBackBeforeItsThreadEndedStartsOnlyAfterItsReaderRemoved() async throws {
        let handler = GatedTapHandler(holding: true)
        let registry = registry(handler)
        registry.reconcile([entry()])
        try await events.wait(for: .readerAdded)
        #expect(registry.readers().map(\.id) == [reader])
        worlds[0].insert()
        try await events.wait(for: .cardInserted)

        registry.reconcile([])
        #expect(registry.readers().isEmpty)
        // Back while the old thread is still in its session: not started beside it.
        registry.reconcile([entry()])
        #expect(registry.liveThreads == 1)
        handler.release()
        try await events.wait(for: .readerRemoved)
        try await waitUntil("the old thread to end", seconds: 10) { registry.liveThreads == 0 }
        registry.reconcile([entry()])
        try await events.wait(for: .readerAdded, count: 2)
        #expect(events.kinds == [.readerAdded, .cardInserted, .cardRemoved, .readerRemoved, .readerAdded])
        guard case .reader(let removed) = events.payloads[3] else {
            Issue.record("reader.removed carries no reader")
            return
        }
        #expect(removed.reason == "the reader was removed")
        #expect(await registry.shutdown(deadline: .seconds(10)))
        #expect(registry.readers().isEmpty)
    }

    @Test func aReaderWhoseThreadEndedIsNotStartedAgainBeforeItsBackoffHasPassed() async throws {
        let registry = registry(restartBackoff: .init(first: 3600, last: 3600))
        registry.reconcile([entry()])
        try await events.wait(for: .readerAdded)
        worlds[0].change { $0.waitFault = ReaderFault(.gone, "unplugged") }
        try await events.wait(for: .readerRemoved)
        try await waitUntil("the thread to end", seconds: 10) { registry.liveThreads == 0 }
        registry.reconcile([entry()])
        #expect(registry.liveThreads == 0)
        #expect(registry.readers().isEmpty)
        #expect(await registry.shutdown(deadline: .seconds(10)))
    }

    @Test func anotherAddressAtTheSameIdIsAnotherDeviceAndStartsTheReaderAnew() async throws {
        let registry = registry()
        registry.reconcile([entry(address: "pn53x_usb:001:007")])
        try await events.wait(for: .readerAdded)
        let first = try #require(registry.slot(for: reader))
        registry.reconcile([entry(address: "pn53x_usb:001:012")])
        #expect(first.stopReason == "the reader was removed")
        try await events.wait(for: .readerRemoved)
        try await waitUntil("the first thread to end", seconds: 10) { registry.liveThreads == 0 }
        registry.reconcile([entry(address: "pn53x_usb:001:012")])
        try await events.wait(for: .readerAdded, count: 2)
        #expect(registry.slot(for: reader) !== first)
        #expect(await registry.shutdown(deadline: .seconds(10)))
    }

    @Test func aStuckReaderIsRestartedOnANewThreadAndNotAgainWhileTheOldThreadIsStuck() async throws {
        let handler = GatedTapHandler(holding: true)
        let registry = registry(handler)
        registry.reconcile([entry()])
        try await events.wait(for: .readerAdded)
        worlds[0].insert()
        try await events.wait(for: .cardInserted)
        let stuck = try #require(registry.slot(for: reader))

        #expect(registry.restart(stuck, because: "stuck in a tap's session"))
        #expect(events.kinds.last == .readerRemoved)
        #expect(registry.slot(for: reader) == nil)
        #expect(!registry.restart(stuck, because: "stuck again"))
        registry.reconcile([entry()])
        try await events.wait(for: .readerAdded, count: 2)
        let fresh = try #require(registry.slot(for: reader))
        #expect(fresh !== stuck)
        // One stuck thread per reader at most.
        #expect(!registry.restart(fresh, because: "stuck too"))

        handler.release()
        try await waitUntil("the stuck thread to end", seconds: 10) { registry.liveThreads == 1 }
        // The old thread's card.removed and reader.removed were dropped.
        #expect(events.kinds == [.readerAdded, .cardInserted, .readerRemoved, .readerAdded])
        #expect(registry.restart(fresh, because: "stuck in a tap's session"))
        #expect(await registry.shutdown(deadline: .seconds(10)))
    }

    @Test func backendUpAndDownArePublishedOncePerChange() {
        let registry = registry()
        #expect(registry.backendDown(reason: "pcscd is not running"))
        #expect(!registry.backendDown(reason: "pcscd is still not running"))
        #expect(registry.backendUp())
        #expect(!registry.backendUp())
        #expect(registry.backendDown(reason: "pcscd went away"))
        #expect(events.kinds == [.backendDown, .backendUp, .backendDown])
    }

    /// A discovery that lists one reader and then pauses for an hour at a time.
    struct PausingDiscovery: ReaderDiscovery {
        let entry: ReaderEntry

        func run(in registry: ReaderRegistry) {
            while !registry.isStopping {
                registry.reconcile([entry])
                registry.pause(for: .seconds(3600))
            }
        }
    }

    @Test func shutdownEndsTheDiscoverysPauseAndEveryReaderBeforeItsDeadline() async throws {
        let registry = registry()
        registry.start(PausingDiscovery(entry: entry()))
        try await events.wait(for: .readerAdded)
        #expect(await registry.shutdown(deadline: .seconds(10)))
        #expect(registry.readers().isEmpty)
        #expect(events.kinds == [.readerAdded, .readerRemoved])
        // Stopped: nothing starts again.
        registry.reconcile([entry()])
        #expect(registry.liveThreads == 0)
    }
}
