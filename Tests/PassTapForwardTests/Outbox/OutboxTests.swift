import ForwardSettings
import Foundation
import NIOCore
import PassTapCore
import PassTapTestSupport
import SQLiteNIO
import Testing

@testable import PassTapForward

/// The outbox's storage side on real SQLite files: sinks, cursors, dead lists, backlogs, row
/// ids, the file itself.
@Suite struct OutboxTests {
    /// An outbox with sinks `names` (all taking card.inserted) and `count` card.inserted events.
    static func filled(_ fixture: OutboxFixture, sinks names: [String], count: Int, instance: String = "i") async throws -> Outbox {
        let sinks = names.map { OutboxFixture.sink($0) }
        fixture.reconfigure(sinks)
        let outbox = try await fixture.open()
        try await outbox.setSinks(sinks, now: OutboxFixture.time)
        try await store(fixture, outbox, count: count, instance: instance)
        return outbox
    }

    /// Stores `count` card.inserted events through a writer of its own.
    static func store(_ fixture: OutboxFixture, _ outbox: Outbox, count: Int, instance: String = "i") async throws {
        let writer = fixture.writer(instance: instance)
        writer.attach(outbox)
        let hub = fixture.hub(writer)
        for _ in 0..<count { hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card) }
        await writer.stop()
    }

    static func batch(_ outbox: Outbox, _ sink: String, limit: Int = 100) async throws -> [OutboxItem] {
        try await outbox.nextBatch(for: sink, kinds: [.cardInserted], limit: limit, includeMessage: false)
    }

    static func sink(_ status: OutboxStatus, _ name: String) throws -> OutboxStatus.Sink {
        try #require(status.sinks.first { $0.name == name })
    }

    /// How many rows `events` holds, read with a connection of the test's own.
    static func rowCount(_ path: String) async throws -> Int {
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threadPool, on: MultiThreadedEventLoopGroup.singleton.any())
        let count = try await connection.query("SELECT COUNT(*) AS n FROM events").first?.column("n")?.integer ?? -1
        try await connection.close()
        try await threadPool.shutdownGracefully()
        return count
    }

    @Test func eachSinkHasItsOwnCursor() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a", "b"], count: 5)
        let all = try await Self.batch(outbox, "a")
        #expect(all.count == 5)
        try await outbox.markDelivered(sink: "a", rowIDs: all.prefix(3).map(\.rowID))
        try await outbox.markDelivered(sink: "b", rowIDs: [all[0].rowID])
        #expect(try await Self.batch(outbox, "a").map(\.id) == ["i:4", "i:5"])
        #expect(try await Self.batch(outbox, "b").map(\.id) == ["i:2", "i:3", "i:4", "i:5"])
        #expect(try await Self.batch(outbox, "b", limit: 2).map(\.id) == ["i:2", "i:3"])
        let status = try await outbox.status()
        #expect(try Self.sink(status, "a").pending == 2)
        #expect(try Self.sink(status, "b").pending == 4)
        #expect(try Self.sink(status, "b").oldestPending == OutboxFixture.time)
        #expect(status.sinks.map(\.name) == ["a", "b"])
        await outbox.close()
    }

    @Test func nextBatchTakesOnlyTheSinksKinds() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a"], count: 2)
        #expect(try await outbox.nextBatch(for: "a", kinds: [.readResult], limit: 10, includeMessage: false).isEmpty)
        #expect(try await outbox.nextBatch(for: "a", kinds: [], limit: 10, includeMessage: false).isEmpty)
        await #expect(throws: OutboxError.unknownSink("nobody")) {
            _ = try await outbox.nextBatch(for: "nobody", kinds: [.cardInserted], limit: 10, includeMessage: false)
        }
        await outbox.close()
    }

    @Test func aNewSinkStartsAfterTheNewestStoredEvent() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a"], count: 2)
        let both = [OutboxFixture.sink("a"), OutboxFixture.sink("late")]
        fixture.reconfigure(both)
        try await outbox.setSinks(both, now: OutboxFixture.time)
        #expect(try await Self.batch(outbox, "late").isEmpty)
        try await Self.store(fixture, outbox, count: 1, instance: "j")
        #expect(try await Self.batch(outbox, "late").map(\.id) == ["j:1"])
        #expect(try await Self.batch(outbox, "a").map(\.id) == ["i:1", "i:2", "j:1"])
        await outbox.close()
    }

    @Test func deadEventsWaitForRetryAndComeFirst() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a"], count: 3)
        let all = try await Self.batch(outbox, "a")
        try await outbox.markDelivered(sink: "a", rowIDs: [all[0].rowID])
        try await outbox.markDead(sink: "a", rowID: all[1].rowID, error: "HTTP 400")
        var sink = try Self.sink(try await outbox.status(), "a")
        #expect(sink.dead == 1 && sink.pending == 1)
        #expect(try await Self.batch(outbox, "a").map(\.id) == ["i:3"])
        #expect(try await outbox.requeueDead(sink: "a") == 1)
        #expect(try await outbox.requeueDead(sink: "a") == 0)
        sink = try Self.sink(try await outbox.status(), "a")
        #expect(sink.dead == 0 && sink.pending == 2)
        let again = try await Self.batch(outbox, "a")
        #expect(again.map(\.id) == ["i:2", "i:3"])
        try await outbox.markDelivered(sink: "a", rowIDs: again.map(\.rowID))
        sink = try Self.sink(try await outbox.status(), "a")
        #expect(sink.dead == 0 && sink.pending == 0)
        #expect(try await Self.batch(outbox, "a").isEmpty)
        await #expect(throws: OutboxError.unknownSink("nobody")) { _ = try await outbox.requeueDead(sink: "nobody") }
        await outbox.close()
    }

    @Test func droppingABacklogSaysWhatWent() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a", "b"], count: 4)
        let all = try await Self.batch(outbox, "a")
        try await outbox.markDead(sink: "a", rowID: all[0].rowID, error: "HTTP 400")
        let dropped = try await outbox.dropBacklog(sink: "a")
        #expect(dropped == ForwardDropped(reason: .requested, sink: "a", count: 4, firstID: "i:1", lastID: "i:4"))
        #expect(try await outbox.dropBacklog(sink: "a") == nil)
        #expect(try await Self.batch(outbox, "a").isEmpty)
        let status = try await outbox.status()
        #expect(try Self.sink(status, "a").dead == 0 && Self.sink(status, "a").pending == 0)
        #expect(try Self.sink(status, "b").pending == 4)
        await #expect(throws: OutboxError.unknownSink("nobody")) { _ = try await outbox.dropBacklog(sink: "nobody") }
        await outbox.close()
    }

    @Test func aRemovedSinkKeepsItsBacklogUntilItExpires() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a", "b"], count: 3)
        let removedAt = OutboxFixture.time.addingTimeInterval(60)
        try await outbox.setSinks([OutboxFixture.sink("a")], now: removedAt)
        var b = try Self.sink(try await outbox.status(), "b")
        #expect(b.removedAt == removedAt && b.pending == 3)
        // Events published after the removal are not its backlog, and are not kept for it: "a"
        // delivering them leaves nothing of them in the file.
        try await Self.store(fixture, outbox, count: 2, instance: "j")
        b = try Self.sink(try await outbox.status(), "b")
        #expect(b.pending == 3)
        let later = try await Self.batch(outbox, "a")
        #expect(later.map(\.id) == ["i:1", "i:2", "i:3", "j:1", "j:2"])
        try await outbox.markDelivered(sink: "a", rowIDs: later.map(\.rowID))
        #expect(try await Self.rowCount(fixture.path) == 3)
        // Named again before it expires: active, with its old cursor.
        try await outbox.setSinks([OutboxFixture.sink("a"), OutboxFixture.sink("b")], now: removedAt)
        b = try Self.sink(try await outbox.status(), "b")
        #expect(b.removedAt == nil && b.pending == 3)
        try await outbox.setSinks([OutboxFixture.sink("a")], now: removedAt)
        #expect(try await outbox.expireRemovedSinks(removedBefore: removedAt).isEmpty)
        let expired = try await outbox.expireRemovedSinks(removedBefore: removedAt.addingTimeInterval(1))
        #expect(expired == [ForwardDropped(reason: .sinkRemoved, sink: "b", count: 3, firstID: "i:1", lastID: "i:3")])
        #expect(try await outbox.status().sinks.map(\.name) == ["a"])
        await outbox.close()
    }

    @Test func rowsEverySinkHasPassedAreDeletedAndTheirIDsNeverComeBack() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Self.filled(fixture, sinks: ["a", "b"], count: 3)
        let first = try await Self.batch(outbox, "a")
        try await outbox.markDelivered(sink: "a", rowIDs: first.map(\.rowID))
        #expect(try await Self.rowCount(fixture.path) == 3)  // b still needs them
        try await outbox.markDelivered(sink: "b", rowIDs: first.prefix(2).map(\.rowID))
        #expect(try await Self.rowCount(fixture.path) == 1)
        try await outbox.markDelivered(sink: "b", rowIDs: [first[2].rowID])
        #expect(try await Self.rowCount(fixture.path) == 0)
        #expect(try await outbox.status().pendingBytes == 0)
        await outbox.close()
        // After a reopen with every row gone, new rows still get larger ids than any before.
        let reopened = try await fixture.open()
        try await Self.store(fixture, reopened, count: 1, instance: "j")
        let next = try await Self.batch(reopened, "a")
        #expect(next.map(\.id) == ["j:1"])
        #expect(try #require(next.first).rowID > first[2].rowID)
        await reopened.close()
    }

    @Test func theFileIsPrivateAndHeldByThreeDescriptors() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: fixture.path)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        let wal = try #require(try FileManager.default.attributesOfItem(atPath: fixture.path + "-wal")[.posixPermissions] as? Int)
        #expect(wal & 0o777 == 0o600)
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { name in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? "").hasPrefix(fixture.path)
        }
        #expect(descriptors.count == 3)
        await outbox.close()
    }

    @Test func aMissingFolderOrABadFileIsAClearError() async throws {
        let fixture = try OutboxFixture()
        let missing = fixture.folder.appendingPathComponent("nowhere/outbox.sqlite").path
        let noFolder = await #expect(throws: OutboxError.self) { _ = try await fixture.open(path: missing) }
        #expect(noFolder?.description.contains(missing) == true)
        #expect(noFolder?.description.contains("does not exist: create it") == true)
        let garbage = fixture.folder.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        let notOutbox = await #expect(throws: OutboxError.self) { _ = try await fixture.open(path: garbage) }
        #expect(notOutbox?.description.contains(garbage) == true)
        #expect(notOutbox?.description.contains("not an SQLite database") == true)
        #expect(notOutbox?.description.contains("move it aside") == true)
    }

    @Test func aClosedOutboxSaysSo() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        await outbox.close()
        let error = await #expect(throws: OutboxError.self) { _ = try await outbox.status() }
        #expect(error?.description.contains(fixture.path) == true)
        #expect(error?.description.contains("closed") == true)
    }
}
