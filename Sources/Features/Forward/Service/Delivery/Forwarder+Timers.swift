import ForwardSettings
import Foundation
import Logging
import Synchronization
import PassTapCore

extension Forwarder {
    /// Drops the backlog of each sink removed `removed_sink_keep_hours` ago, and announces it,
    /// until the forwarder stops. Sleeps until the next one is due; a reload wakes it.
    func expireRemovedSinks(of outbox: any OutboxStorage) async {
        while !Task.isCancelled {
            let keep = TimeInterval(live.current.forward.removedSinkKeepHours) * 3600
            let removed: [Date]
            do {
                removed = try await outbox.status().sinks.compactMap(\.removedAt)
            } catch {
                logger.error("cannot read the forwarding outbox for removed sinks", metadata: ["error": "\(error)"])
                await sleep(Self.outboxRetry, unlessSignalled: expiryWakeup)
                continue
            }
            guard let first = removed.min() else {
                await expiryWakeup.wait()
                continue
            }
            let wait = first.addingTimeInterval(keep).timeIntervalSince(clock.date)
            if wait > 0 {
                expiryWakeup.reset()
                await sleep(.milliseconds(Int64((wait * 1000).rounded(.up))), unlessSignalled: expiryWakeup)
                continue
            }
            do {
                // A second of slack, so a sink due now goes whether the outbox compares with < or <=.
                let expired = try await outbox.expireRemovedSinks(removedBefore: clock.date.addingTimeInterval(1 - keep))
                for dropped in expired {
                    var dropped = dropped
                    dropped.reason = .sinkRemoved
                    announce(dropped)
                }
            } catch {
                logger.error("cannot drop a removed sink's backlog", metadata: ["error": "\(error)"])
                await sleep(Self.outboxRetry, unlessSignalled: expiryWakeup)
            }
        }
    }

    /// Refreshes the backlog gauges every ``metricsInterval`` and after each batch, one query at
    /// a time (signals that come during one make one more).
    func refreshMetrics(of outbox: any OutboxStorage) async {
        guard let metrics else { return }
        while !Task.isCancelled {
            if let status = try? await outbox.status() {
                let time = clock.date
                metrics.forwardBacklogs(
                    status.sinks.map { sink in
                        ForwardBacklog(
                            sink: sink.name, pending: sink.pending,
                            oldestPendingAge: .seconds(max(0, sink.oldestPending.map { time.timeIntervalSince($0) } ?? 0)))
                    })
            }
            await sleep(metricsInterval, unlessSignalled: refreshWakeup)
        }
    }
}
