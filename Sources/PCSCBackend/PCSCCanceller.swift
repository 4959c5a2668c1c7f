import Foundation
import Synchronization

/// The thread that makes every `SCardCancel` call.
///
/// `SCardCancel` is a round trip to pcscd, so it must not run on a Swift task's thread or an
/// event loop: waking a reader for a queued request, or stopping it, only hands its context to
/// this thread, which never blocks its callers.
final class PCSCCanceller: Sendable {
    private struct Shared {
        var pending: [PCSCContext] = []
        var stopping = false
    }

    private let shared = Mutex(Shared())
    private let signal = NSCondition()

    /// Asks for `context`'s wait to be cancelled; returns at once.
    func cancel(_ context: PCSCContext) {
        shared.withLock { $0.pending.append(context) }
        signal.lock()
        signal.signal()
        signal.unlock()
    }

    /// Ends the thread once what is pending has been cancelled.
    func finish() {
        shared.withLock { $0.stopping = true }
        signal.lock()
        signal.signal()
        signal.unlock()
    }

    /// The thread's body.
    func run() {
        while true {
            let (contexts, done): ([PCSCContext], Bool) = shared.withLock { shared in
                defer { shared.pending.removeAll() }
                return (shared.pending, shared.stopping && shared.pending.isEmpty)
            }
            if done { return }
            if contexts.isEmpty {
                signal.lock()
                let idle = shared.withLock { $0.pending.isEmpty && !$0.stopping }
                if idle { _ = signal.wait(until: Date(timeIntervalSinceNow: 1)) }
                signal.unlock()
                continue
            }
            // Two wakes of one context before the thread ran need one cancel.
            var seen = Set<ObjectIdentifier>()
            for context in contexts where seen.insert(ObjectIdentifier(context)).inserted {
                context.cancel()
            }
        }
    }
}
