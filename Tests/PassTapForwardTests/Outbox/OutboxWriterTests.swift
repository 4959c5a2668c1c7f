import ForwardSettings
import Foundation
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Synchronization
import Testing

@testable import PassTapForward

/// The writer on real SQLite files: what it stores, in which order, what survives, what it drops.
@Suite struct OutboxWriterTests {
    @Test func eventsOfTwoInstancesComeInRowOrderThoughSeqStartsAgain() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        for instance in ["first", "second"] {
            let writer = fixture.writer(instance: instance)
            writer.attach(outbox)
            let hub = fixture.hub(writer)
            for _ in 0..<3 { hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card) }
            await writer.stop()
        }
        let batch = try await outbox.nextBatch(for: "a", kinds: [.cardInserted], limit: 10, includeMessage: false)
        #expect(batch.map(\.id) == ["first:1", "first:2", "first:3", "second:1", "second:2", "second:3"])
        #expect(batch.map(\.rowID) == batch.map(\.rowID).sorted())
        #expect(Set(batch.map(\.rowID)).count == 6)
        #expect(batch.allSatisfy { $0.source == "till-test" && $0.kind == .cardInserted && $0.reader == OutboxFixture.reader.rawValue })
        #expect(batch.allSatisfy { $0.time == OutboxFixture.time })
        await outbox.close()
    }

    @Test func theStoredEventIsTheHubsEncodedObject() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        writer.attach(outbox)
        let event = fixture.hub(writer).publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        await writer.stop()
        let item = try #require(try await outbox.nextBatch(for: "a", kinds: [.cardInserted], limit: 1, includeMessage: false).first)
        // The socket's line for the same event is exactly the stored object inside the envelope.
        let line = String(buffer: EventNotificationEncoder.encode(event))
        #expect(line == #"{"jsonrpc":"2.0","method":"event","params":"# + String(buffer: item.event) + "}\n")
        await outbox.close()
    }

    @Test func aCommittedEventIsThereAfterReopening() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        writer.attach(outbox)
        fixture.hub(writer).publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        await writer.stop()
        await outbox.close()
        let reopened = try await fixture.open()
        let batch = try await reopened.nextBatch(for: "a", kinds: [.cardInserted], limit: 10, includeMessage: false)
        #expect(batch.map(\.id) == ["i:1"])
        await reopened.close()
    }

    /// As close to `kill -9` as a unit test gets: once the writer's commit returned, the files as
    /// they are on disk (the database and its write-ahead log, copied while the writer's thread
    /// and the connection are still alive, never stopped or closed) hold the event.
    @Test func aCommittedEventIsInTheFilesWithoutStopOrClose() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        writer.attach(outbox)
        fixture.hub(writer).publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        try await fixture.nextCommit()
        let copy = try OutboxFixture()
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: fixture.path + suffix, toPath: copy.path + suffix)
        }
        let reopened = try await copy.open()
        let batch = try await reopened.nextBatch(for: "a", kinds: [.cardInserted], limit: 10, includeMessage: false)
        #expect(batch.map(\.id) == ["i:1"])
        await reopened.close()
        await writer.stop()
        await outbox.close()
    }

    @Test func nothingIsKeptBeforeAnOutboxIsAttachedNorOfAKindNoSinkWants() async throws {
        let fixture = try OutboxFixture(sinks: [OutboxFixture.sink("a", kinds: [.cardInserted])])
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a", kinds: [.cardInserted])], now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        let hub = fixture.hub(writer)
        hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)  // before attach: not kept
        writer.attach(outbox)
        hub.publish(.cardRemoved, reader: OutboxFixture.reader, payload: .cardRemoved)  // no sink wants it
        hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        await writer.stop()
        hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)  // after stop: not kept
        let batch = try await outbox.nextBatch(for: "a", kinds: Set(EventKind.allCases), limit: 10, includeMessage: false)
        #expect(batch.map(\.id) == ["i:3"])
        await outbox.close()
    }

    @Test func aFullOutboxDropsTheOldestAndAnnouncesTheRange() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        writer.attach(outbox)
        let hub = fixture.hub(writer)
        hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        try await fixture.nextCommit()
        let size = try await outbox.status().pendingBytes
        #expect(size > 0)
        // Room for 3 events of this size (seq 1...5 have one digit: every event has the same size).
        fixture.reconfigure([OutboxFixture.sink("a")], maxPendingBytes: 3 * size)
        for _ in 2...5 { hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card) }
        await writer.stop()
        let drops = fixture.drops
        #expect(drops.allSatisfy { $0.reason == .outboxFull && $0.sink == nil })
        #expect(drops.map(\.count).reduce(0, +) == 2)
        #expect(drops.first?.firstID == "i:1")
        #expect(drops.last?.lastID == "i:2")
        #expect(writer.dropped == 2)
        let batch = try await outbox.nextBatch(for: "a", kinds: [.cardInserted], limit: 10, includeMessage: false)
        #expect(batch.map(\.id) == ["i:3", "i:4", "i:5"])
        #expect(try await outbox.status().pendingBytes == 3 * size)
        await outbox.close()
    }

    @Test func aHandoffThatOverflowsIsCountedAndAnnouncedWithItsIDs() async throws {
        let fixture = try OutboxFixture()
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        // The first commit's onCommit holds the writer's thread (a disk that cannot keep up)
        // until the test has published more than the handoff holds.
        let held = HeldThread()
        let writer = fixture.writer(instance: "i", limits: OutboxWriter.Limits(events: 2, bytes: 1 << 20, batch: 10)) { held.holdOnce() }
        writer.attach(outbox)
        let hub = fixture.hub(writer)
        hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        try await withDeadline("the writer's thread to be held") { await held.waitHeld() }
        for _ in 2...6 { hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card) }
        held.release()
        await writer.stop()
        #expect(fixture.drops == [ForwardDropped(reason: .outboxFull, sink: nil, count: 3, firstID: "i:4", lastID: "i:6")])
        #expect(writer.dropped == 3)
        let batch = try await outbox.nextBatch(for: "a", kinds: [.cardInserted], limit: 10, includeMessage: false)
        #expect(batch.map(\.id) == ["i:1", "i:2", "i:3"])
        await outbox.close()
    }

    @Test func withoutIncludeMessageTheDecryptedMessageIsNowhereInTheFiles() async throws {
        let fixture = try OutboxFixture(sinks: [OutboxFixture.sink("a", includeMessage: false)])
        let outbox = try await fixture.open()
        try await outbox.setSinks([OutboxFixture.sink("a")], now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        writer.attach(outbox)
        fixture.hub(writer).publish(.readResult, reader: OutboxFixture.reader, payload: OutboxFixture.readResultWithPass())
        await writer.stop()
        let item = try #require(try await outbox.nextBatch(for: "a", kinds: [.readResult], limit: 1, includeMessage: true).first)
        #expect(String(buffer: item.event).contains(#""withheld":"access""#))
        for (name, bytes) in try fixture.filesBytes() {
            #expect(!bytes.contains(text: OutboxFixture.message), "\(name) holds the message")
            #expect(!bytes.contains(text: Array(OutboxFixture.message.utf8).map { String(format: "%02x", $0) }.joined()), "\(name) holds its hex")
            #expect(!bytes.contains(text: Array(OutboxFixture.message.utf8).map { String(format: "%02X", $0) }.joined()), "\(name) holds its hex")
        }
        await outbox.close()
        for (name, bytes) in try fixture.filesBytes() {
            #expect(!bytes.contains(text: OutboxFixture.message), "\(name) holds the message after close")
        }
    }

    @Test func withIncludeMessageTheFullEventIsStoredAndOnlyThatSinkGetsIt() async throws {
        let sinks = [OutboxFixture.sink("full", includeMessage: true), OutboxFixture.sink("withheld", includeMessage: false)]
        let fixture = try OutboxFixture(sinks: sinks)
        let outbox = try await fixture.open()
        try await outbox.setSinks(sinks, now: OutboxFixture.time)
        let writer = fixture.writer(instance: "i")
        writer.attach(outbox)
        let hub = fixture.hub(writer)
        hub.publish(.readResult, reader: OutboxFixture.reader, payload: OutboxFixture.readResultWithPass())
        hub.publish(.cardInserted, reader: OutboxFixture.reader, payload: OutboxFixture.card)
        await writer.stop()
        // The control for the test above: the same search finds the message when it is stored.
        #expect(try fixture.filesBytes().values.contains { $0.contains(text: OutboxFixture.message) })
        let full = try await outbox.nextBatch(for: "full", kinds: [.readResult, .cardInserted], limit: 2, includeMessage: true)
        let withheld = try await outbox.nextBatch(for: "withheld", kinds: [.readResult, .cardInserted], limit: 2, includeMessage: false)
        #expect(String(buffer: full[0].event).contains(OutboxFixture.message))
        #expect(!String(buffer: withheld[0].event).contains(OutboxFixture.message))
        #expect(full[1].event == withheld[1].event)
        // Nothing to withhold in card.inserted: stored once (full_event NULL), so 2 events take 3 objects' bytes.
        let status = try await outbox.status()
        #expect(status.pendingBytes == full[0].event.readableBytes + withheld[0].event.readableBytes + full[1].event.readableBytes)
        await outbox.close()
    }
}

/// Holds the thread that calls ``holdOnce()`` (the first time only) until ``release()``.
final class HeldThread: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let state = Mutex<(held: Bool, used: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, false, nil))

    func holdOnce() {
        let waiter: CheckedContinuation<Void, Never>?? = state.withLock { state in
            guard !state.used else { return .none }
            state.used = true
            state.held = true
            defer { state.waiter = nil }
            return .some(state.waiter)
        }
        guard case .some(let continuation) = waiter else { return }
        continuation?.resume()
        gate.wait()
    }

    func waitHeld() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.held { return true }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func release() { gate.signal() }
}
