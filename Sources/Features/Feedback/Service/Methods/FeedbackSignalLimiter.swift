import PassTapServer
import Synchronization

/// `feedback.signal`'s limit per peer (a user on the Unix socket, a token on `/rpc`): at most
/// ``limit`` calls in any ``window``. A POS gives one verdict per tap, so a peer over it is a
/// loop, or someone making every reader in the store flash; the reader's thread, which the next
/// tap needs, is not theirs to keep busy. Memory is bounded by the peers seen in the last window.
final class FeedbackSignalLimiter: Sendable {
    /// The calls a peer may make in a window.
    static let limit = 10
    /// The window.
    static let window: Duration = .seconds(10)

    private let calls = Mutex<[ClientPeer.Owner: [ContinuousClock.Instant]]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    /// A limiter reading the time from `now` (the tests' clock).
    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// Counts a call of `owner`: `nil` when under the limit, else how long until a call is taken.
    func admit(_ owner: ClientPeer.Owner) -> Duration? {
        let now = now()
        return calls.withLock { calls in
            let start = now - Self.window
            calls = calls.compactMapValues { times in
                let kept = times.filter { $0 > start }
                return kept.isEmpty ? nil : kept
            }
            var times = calls[owner] ?? []
            if times.count >= Self.limit, let oldest = times.first {
                return max(oldest + Self.window - now, .milliseconds(1))
            }
            times.append(now)
            calls[owner] = times
            return nil
        }
    }
}
