import ForwardSettings
import Foundation
import Synchronization
import Logging
import PassTapCore
import PassTapProtocol

extension Forwarder {
    /// One sink's loop, until its task is cancelled: the next batch, delivered, the cursor moved
    /// by the outcome; a wait for new events when nothing is pending, the backoff after a failure.
    func deliver(to sink: any ForwardSink, record: SinkRecord, outbox: any OutboxStorage) async {
        let settings = sink.settings
        var logger = self.logger
        logger[metadataKey: "forward.sink"] = "\(settings.name)"
        var backoff = RetryBackoff()
        while !Task.isCancelled {
            let batch: [OutboxItem]
            do {
                batch = try await outbox.nextBatch(
                    for: settings.name, kinds: settings.kinds, limit: max(1, sink.batchLimit), includeMessage: settings.includeMessage)
            } catch {
                await retry(after: ForwardFailure(.outboxUnavailable, error.description), retryAfter: nil, backoff: &backoff, record: record, logger: logger)
                continue
            }
            guard !batch.isEmpty else {
                record.nothingPending()
                await record.work.wait()
                continue
            }
            switch await sink.deliver(batch) {
            case .delivered:
                if await markDelivered(batch, count: batch.count, record: record, outbox: outbox, logger: logger) {
                    backoff.reset()
                } else {
                    await retry(after: Self.unrecorded, retryAfter: nil, backoff: &backoff, record: record, logger: logger)
                }
            case .retry(let delivered, let after, let error):
                _ = await markDelivered(batch, count: delivered, record: record, outbox: outbox, logger: logger)
                metrics?.forwardRetried(sink: settings.name)
                await retry(after: error, retryAfter: after, backoff: &backoff, record: record, logger: logger)
            case .dead(let delivered, let error):
                guard await markDelivered(batch, count: delivered, record: record, outbox: outbox, logger: logger) else {
                    await retry(after: Self.unrecorded, retryAfter: nil, backoff: &backoff, record: record, logger: logger)
                    continue
                }
                // The receiver answered: it is up.
                backoff.reset()
                guard delivered < batch.count else { break }
                let refused = batch[delivered]
                do {
                    try await outbox.markDead(sink: settings.name, rowID: refused.rowID, error: error.text)
                } catch {
                    await retry(after: ForwardFailure(.outboxUnavailable, error.description), retryAfter: nil, backoff: &backoff, record: record, logger: logger)
                    continue
                }
                record.refused(error)
                metrics?.forwardDead(sink: settings.name)
                logger.warning("forwarded event refused for good: it is on the sink's dead list", metadata: ["forward.id": "\(refused.id)", "error": "\(error)"])
            }
            refreshWakeup.signal()
        }
    }

    /// Moves `sink`'s cursor past the first `count` events of `batch`; false (logged) if the
    /// outbox failed, and the events will be delivered again.
    private func markDelivered(_ batch: [OutboxItem], count: Int, record: SinkRecord, outbox: any OutboxStorage, logger: Logger) async -> Bool {
        let delivered = batch.prefix(max(0, min(count, batch.count)))
        guard !delivered.isEmpty else { return true }
        do {
            try await outbox.markDelivered(sink: record.name, rowIDs: delivered.map(\.rowID))
        } catch {
            logger.error("cannot record a delivery in the outbox: the events will be delivered again", metadata: ["error": "\(error)"])
            return false
        }
        record.didDeliver(delivered.count)
        if let metrics {
            let time = clock.date
            metrics.forwardDelivered(sink: record.name, latencies: delivered.map { .seconds(max(0, time.timeIntervalSince($0.time))) })
        }
        return true
    }

    /// The failure of a delivery the outbox could not record (the events go again).
    private static let unrecorded = ForwardFailure(.outboxUnavailable, "cannot record a delivery in the outbox")

    /// Records `error` and waits the backoff (or `retryAfter`, if later), unless an operator's
    /// `forward.retry` or `forward.drop` cuts it short.
    private func retry(after error: ForwardFailure, retryAfter: Duration?, backoff: inout RetryBackoff, record: SinkRecord, logger: Logger) async {
        let delay = random.withLock { backoff.delay(retryAfter: retryAfter, using: &$0) }
        record.failedAndWillRetry(error, retryDue: clock.date.addingTimeInterval(Self.seconds(delay)))
        logger.warning(
            "forwarding failed: trying again later",
            metadata: ["error": "\(error)", "forward.retry_in_ms": "\(Int(Self.seconds(delay) * 1000))", "forward.failures": "\(backoff.failures)"])
        record.nudge.reset()
        await sleep(delay, unlessSignalled: record.nudge)
        record.retrying()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
