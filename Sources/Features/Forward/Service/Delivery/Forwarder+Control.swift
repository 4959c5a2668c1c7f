import ForwardSettings
import Foundation
import Logging
import Synchronization
public import PassTapProtocol
import PassTapCore

extension Forwarder {
    /// `forward.status`: the outbox's figures per sink, with what only the forwarder knows
    /// (deliveries since start, the last error, the next retry, when a removed sink's backlog goes).
    public func status() async -> ForwardStatusResult {
        let forward = live.current.forward
        let (outbox, outboxError, records, dropped) = state.withLock { ($0.outbox, $0.outboxError, $0.records, $0.dropped) }
        let source = forward.effectiveSource
        let time = clock.date
        var problem = outboxError
        if let outbox {
            do {
                let status = try await outbox.status()
                return ForwardStatusResult(
                    enabled: true, source: source, pendingBytes: status.pendingBytes, maxPendingBytes: forward.maxPendingBytes, dropped: dropped,
                    sinks: status.sinks.map { sink in
                        let record = records[sink.name]
                        let lastError = outboxError.map { ForwardFailure(.outboxUnavailable, $0) } ?? record?.lastError
                        return ForwardSinkStatus(
                            name: sink.name, type: sink.type, state: sink.removedAt == nil ? .active : .removed, pending: sink.pending,
                            oldestPendingAgeMilliseconds: sink.oldestPending.map { Self.milliseconds(from: $0, to: time) }, dead: sink.dead,
                            delivered: record?.delivered ?? 0, lastError: lastError?.text, lastErrorReason: lastError?.reason,
                            retryInMilliseconds: sink.removedAt == nil ? record?.retryDue.map { Self.milliseconds(from: time, to: $0) } : nil,
                            dropAt: sink.removedAt.map {
                                RFC3339.string(from: $0.addingTimeInterval(TimeInterval(forward.removedSinkKeepHours) * 3600))
                            })
                    })
            } catch {
                problem = error.description
            }
        }
        // No outbox (or it failed): the configured sinks, with what went wrong.
        return ForwardStatusResult(
            enabled: outbox != nil, source: source, pendingBytes: 0, maxPendingBytes: forward.maxPendingBytes, dropped: dropped,
            sinks: forward.sinks.map { sink in
                ForwardSinkStatus(
                    name: sink.name, type: sink.type, state: .active, pending: 0, oldestPendingAgeMilliseconds: nil, dead: 0,
                    delivered: records[sink.name]?.delivered ?? 0, lastError: problem,
                    lastErrorReason: problem.map { _ in .outboxUnavailable }, retryInMilliseconds: nil,
                    dropAt: nil)
            })
    }

    /// `forward.retry`: the sink's dead events are queued again, and its loop tries at once.
    public func retry(sink: String) async throws(ForwardControlError) -> ForwardRetryResult {
        let outbox = try openedOutbox(for: sink)
        let requeued: Int
        do {
            requeued = try await outbox.requeueDead(sink: sink)
        } catch {
            throw Self.controlError(error)
        }
        wakeNow(sink)
        return ForwardRetryResult(sink: sink, requeued: requeued)
    }

    /// `forward.drop`: everything the sink still has to deliver goes, announced with
    /// `forward.dropped` (reason `requested`).
    public func drop(sink: String) async throws(ForwardControlError) -> ForwardDropResult {
        let outbox = try openedOutbox(for: sink)
        let dropped: ForwardDropped?
        do {
            dropped = try await outbox.dropBacklog(sink: sink)
        } catch {
            throw Self.controlError(error)
        }
        if var dropped {
            dropped.reason = .requested
            announce(dropped)
        }
        wakeNow(sink)
        expiryWakeup.signal()
        return ForwardDropResult(sink: sink, dropped: dropped?.count ?? 0)
    }

    /// The open outbox, or why there is none: with no outbox, a sink the config names waits
    /// for it (`outbox_unavailable`), and any other name is unknown.
    private func openedOutbox(for sink: String) throws(ForwardControlError) -> any OutboxStorage {
        let (outbox, error) = state.withLock { ($0.outbox, $0.outboxError) }
        if let outbox { return outbox }
        guard live.current.forward.sinks.contains(where: { $0.name == sink }) else { throw .unknownSink(sink) }
        throw .outboxUnavailable(error ?? "the forwarding outbox is not open")
    }

    private func wakeNow(_ sink: String) {
        state.withLock { $0.records[sink] }?.wakeNow()
    }

    static func controlError(_ error: OutboxError) -> ForwardControlError {
        switch error {
        case .unknownSink(let name): return .unknownSink(name)
        case .storage(let message): return .outboxUnavailable(message)
        }
    }

    static func milliseconds(from start: Date, to end: Date) -> Int {
        max(0, Int((end.timeIntervalSince(start) * 1000).rounded()))
    }
}
