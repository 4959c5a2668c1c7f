import Synchronization

/// Counts open client connections against `[socket] max_clients`.
final class ConnectionLimiter: Sendable {
    /// The most connections served at once.
    let limit: Int
    private let open = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Takes a slot; `false` when all are taken.
    func acquire() -> Bool {
        open.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Gives back a slot taken by ``acquire()``.
    func release() { open.withLock { $0 -= 1 } }
}
