import Synchronization

/// Counts open client connections against `[socket] max_clients`, and each user's against
/// `[socket] max_clients_per_uid`.
final class ConnectionLimiter: Sendable {
    /// The most connections served at once.
    let limit: Int
    /// The most connections one user may hold at once (a reload may change it; connections
    /// already open stay).
    var perUserLimit: Int { open.withLock { $0.perUserLimit } }
    private let open: Mutex<Counts>

    private struct Counts {
        var total = 0
        var byUser: [UInt32: Int] = [:]
        var perUserLimit: Int
    }

    init(limit: Int, perUserLimit: Int = .max) {
        self.limit = limit
        open = Mutex(Counts(perUserLimit: perUserLimit))
    }

    /// Changes ``perUserLimit`` for the connections to come.
    func setPerUserLimit(_ limit: Int) {
        open.withLock { $0.perUserLimit = limit }
    }

    /// How many connections hold a slot now.
    var count: Int { open.withLock { $0.total } }

    /// Takes a slot; `false` when all are taken.
    func acquire() -> Bool {
        open.withLock { counts in
            guard counts.total < limit else { return false }
            counts.total += 1
            return true
        }
    }

    /// Gives back a slot taken by ``acquire()``.
    func release() { open.withLock { $0.total -= 1 } }

    /// Takes one of `uid`'s slots; `false` when the user has all of them.
    func acquire(uid: UInt32) -> Bool {
        open.withLock { counts in
            guard counts.byUser[uid, default: 0] < counts.perUserLimit else { return false }
            counts.byUser[uid, default: 0] += 1
            return true
        }
    }

    /// Gives back a slot taken by ``acquire(uid:)``.
    func release(uid: UInt32) {
        open.withLock { counts in
            let left = counts.byUser[uid, default: 1] - 1
            counts.byUser[uid] = left > 0 ? left : nil
        }
    }
}
