import Foundation
import PassTapCore
import Synchronization

/// What the forwarder knows of one sink beyond the outbox, kept from its first start to the
/// daemon's stop (a sink made again by a reload keeps it): what `forward.status` adds to the
/// outbox's figures, and the signals that wake its loop.
final class SinkRecord: Sendable {
    private struct Figures {
        var delivered = 0
        var lastError: ForwardFailure?
        var retryDue: Date?
        var failing: ForwardFailure?
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
    /// Why the sink is broken, while it is: its last attempt failed and the events it tried are
    /// still pending (``failedAndWillRetry(_:retryDue:)``), until a delivery succeeds or nothing
    /// is left to deliver (``nothingPending()``). A refusal for good (the event goes to the dead
    /// list and the next one follows) does not break it: the receiver answered.
    var failing: ForwardFailure? { figures.withLock { $0.failing } }

    /// `count` events were delivered; the last error is forgotten, and the sink works.
    func didDeliver(_ count: Int) {
        figures.withLock {
            $0.delivered += count
            $0.lastError = nil
            $0.failing = nil
        }
    }

    /// Nothing is pending (the backlog went, by delivery or `forward.drop`): the sink is not
    /// broken, whatever its last error was.
    func nothingPending() {
        figures.withLock { $0.failing = nil }
    }

    /// An attempt failed and the same events will be tried again at `retryDue`: the sink is
    /// broken until one gets through.
    func failedAndWillRetry(_ error: ForwardFailure, retryDue: Date) {
        figures.withLock {
            $0.lastError = error
            $0.retryDue = retryDue
            $0.failing = error
        }
    }

    /// The receiver refused an event for good (it went to the dead list): the last error, but
    /// the sink works, as the receiver answered.
    func refused(_ error: ForwardFailure) {
        figures.withLock {
            $0.lastError = error
            $0.retryDue = nil
            $0.failing = nil
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
