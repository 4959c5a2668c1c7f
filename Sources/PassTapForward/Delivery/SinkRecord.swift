import Foundation
import Synchronization

/// What the forwarder knows of one sink beyond the outbox, kept from its first start to the
/// daemon's stop (a sink made again by a reload keeps it): what `forward.status` adds to the
/// outbox's figures, and the signals that wake its loop.
final class SinkRecord: Sendable {
    private struct Figures {
        var delivered = 0
        var lastError: ForwardFailure?
        var retryDue: Date?
    }

    /// The sink's name.
    let name: String
    /// Wakes an idle loop: new events committed, a reload, `forward.retry` or `forward.drop`.
    let work = Wakeup()
    /// Cuts a loop's backoff short: `forward.retry` or `forward.drop` (an operator asked).
    let nudge = Wakeup()
    private let figures = Mutex(Figures())

    init(name: String) {
        self.name = name
    }

    /// Events delivered since the daemon started.
    var delivered: Int { figures.withLock { $0.delivered } }
    /// The last error, until the next success.
    var lastError: ForwardFailure? { figures.withLock { $0.lastError } }
    /// When the next attempt is due, while the loop waits to retry.
    var retryDue: Date? { figures.withLock { $0.retryDue } }

    /// `count` events were delivered; the last error is forgotten.
    func didDeliver(_ count: Int) {
        figures.withLock {
            $0.delivered += count
            $0.lastError = nil
        }
    }

    /// Something failed; the loop tries again at `retryDue` (`nil`: it goes on at once).
    func failed(_ error: ForwardFailure, retryDue: Date?) {
        figures.withLock {
            $0.lastError = error
            $0.retryDue = retryDue
        }
    }

    /// The wait for a retry is over.
    func retrying() {
        figures.withLock { $0.retryDue = nil }
    }

    /// Wakes the loop, and cuts its backoff short.
    func wakeNow() {
        nudge.signal()
        work.signal()
    }
}
