import ForwardSettings
import Foundation
import NIOCore
import PassTapCore
@testable import PassTapForward

/// The outbox in memory, with the semantics ``OutboxStorage`` documents (cursors, dead lists,
/// removed sinks), for the forwarder's tests. ``append(_:at:)`` stands for the writer.
actor MemoryOutbox: OutboxStorage {
    private struct Sink {
        var settings: Configuration.ForwardSinkSettings
        var cursor: Int64
        var removedAt: Date?
        var dead: [Int64: String] = [:]
        var requeued: Set<Int64> = []
    }

    private var events: [OutboxItem] = []
    private var sinks: [String: Sink] = [:]
    /// Configured names, in the order `setSinks` gave.
    private var order: [String] = []
    /// The error every call throws while set.
    private var failure: OutboxError?
    /// The row ids of every batch `nextBatch` gave, in order (empty ones too).
    nonisolated let batches = Recorded<[Int64]>()
    /// The names given to each `setSinks`, in order.
    private(set) var setSinksCalls: [[String]] = []

    /// Stores an event of `kind` published at `time`, as the writer would; returns it.
    @discardableResult
    func append(_ kind: EventKind, at time: Date) -> OutboxItem {
        let rowID = (events.last?.rowID ?? 0) + 1
        let item = OutboxItem(
            rowID: rowID, instance: "instance-1", seq: UInt64(rowID), source: "till-3", kind: kind, reader: nil, time: time,
            event: ByteBuffer(string: #"{"kind":"\#(kind.rawValue)","seq":\#(rowID)}"#))
        events.append(item)
        return item
    }

    /// Makes every call throw `failure` (`nil`: work again).
    func fail(with failure: OutboxError?) {
        self.failure = failure
    }

    func setSinks(_ active: [Configuration.ForwardSinkSettings], now: Date) throws(OutboxError) {
        try check()
        setSinksCalls.append(active.map(\.name))
        let newest = events.last?.rowID ?? 0
        for name in sinks.keys where !active.contains(where: { $0.name == name }) && sinks[name]?.removedAt == nil {
            sinks[name]?.removedAt = now
        }
        for settings in active {
            if sinks[settings.name] == nil {
                sinks[settings.name] = Sink(settings: settings, cursor: newest)
            } else {
                sinks[settings.name]?.settings = settings
                sinks[settings.name]?.removedAt = nil
            }
        }
        order = active.map(\.name)
    }

    func nextBatch(for sink: String, kinds: Set<EventKind>, limit: Int, includeMessage: Bool) throws(OutboxError) -> [OutboxItem] {
        try check()
        guard let state = sinks[sink] else { throw .unknownSink(sink) }
        let requeued = events.filter { state.requeued.contains($0.rowID) }
        let after = events.filter { $0.rowID > state.cursor && kinds.contains($0.kind) }
        let batch = Array((requeued + after).prefix(limit))
        batches.append(batch.map(\.rowID))
        return batch
    }

    func markDelivered(sink: String, rowIDs: [Int64]) throws(OutboxError) {
        try check()
        guard sinks[sink] != nil else { throw .unknownSink(sink) }
        for rowID in rowIDs { pass(rowID, of: sink) }
    }

    func markDead(sink: String, rowID: Int64, error: String) throws(OutboxError) {
        try check()
        guard sinks[sink] != nil else { throw .unknownSink(sink) }
        pass(rowID, of: sink)
        sinks[sink]?.dead[rowID] = error
    }

    func requeueDead(sink: String) throws(OutboxError) -> Int {
        try check()
        guard let state = sinks[sink] else { throw .unknownSink(sink) }
        sinks[sink]?.requeued.formUnion(state.dead.keys)
        sinks[sink]?.dead = [:]
        return state.dead.count
    }

    func dropBacklog(sink: String) throws(OutboxError) -> ForwardDropped? {
        try check()
        guard let state = sinks[sink] else { throw .unknownSink(sink) }
        let gone = backlog(of: state, deadIncluded: true)
        if state.removedAt != nil {
            sinks[sink] = nil
        } else {
            sinks[sink]?.cursor = events.last?.rowID ?? state.cursor
            sinks[sink]?.dead = [:]
            sinks[sink]?.requeued = []
        }
        return Self.dropped(gone, reason: .requested, sink: sink)
    }

    func expireRemovedSinks(removedBefore cutoff: Date) throws(OutboxError) -> [ForwardDropped] {
        try check()
        var dropped: [ForwardDropped] = []
        for (name, state) in sinks.sorted(by: { $0.key < $1.key }) {
            guard let removedAt = state.removedAt, removedAt < cutoff else { continue }
            if let gone = Self.dropped(backlog(of: state, deadIncluded: true), reason: .sinkRemoved, sink: name) { dropped.append(gone) }
            sinks[name] = nil
        }
        return dropped
    }

    func status() throws(OutboxError) -> OutboxStatus {
        try check()
        let removed = sinks.filter { $0.value.removedAt != nil }.keys.sorted()
        let names = order.filter { sinks[$0]?.removedAt == nil } + removed
        var needed: Set<Int64> = []
        let entries = names.compactMap { name -> OutboxStatus.Sink? in
            guard let state = sinks[name] else { return nil }
            let pending = backlog(of: state, deadIncluded: false)
            needed.formUnion(backlog(of: state, deadIncluded: true).map(\.rowID))
            return OutboxStatus.Sink(
                name: name, type: state.settings.type, removedAt: state.removedAt, pending: pending.count, oldestPending: pending.map(\.time).min(),
                dead: state.dead.count)
        }
        let bytes = events.filter { needed.contains($0.rowID) }.reduce(0) { $0 + $1.event.readableBytes }
        return OutboxStatus(sinks: entries, pendingBytes: bytes)
    }

    private func check() throws(OutboxError) {
        if let failure { throw failure }
    }

    /// Moves `sink` past `rowID`: out of its requeued set, or its cursor past it.
    private func pass(_ rowID: Int64, of sink: String) {
        if sinks[sink]?.requeued.remove(rowID) == nil, let cursor = sinks[sink]?.cursor {
            sinks[sink]?.cursor = max(cursor, rowID)
        }
    }

    private func backlog(of state: Sink, deadIncluded: Bool) -> [OutboxItem] {
        events.filter { item in
            state.requeued.contains(item.rowID) || (deadIncluded && state.dead[item.rowID] != nil)
                || (item.rowID > state.cursor && state.settings.kinds.contains(item.kind))
        }
    }

    private static func dropped(_ items: [OutboxItem], reason: ForwardDropped.Reason, sink: String) -> ForwardDropped? {
        guard let first = items.first, let last = items.last else { return nil }
        return ForwardDropped(reason: reason, sink: sink, count: items.count, firstID: first.id, lastID: last.id)
    }
}
