public import Foundation
import Synchronization

/// The one-time phone keys of the cryptograms already read, to tell a replayed read from a new one.
///
/// A phone makes a new random P-256 key for every cryptogram (vas-protocol.md §5.1, bytes 4..<36
/// of `9F27` are its X; Apple Platform Security: "a single-use random ECDH P-256 key"), so the
/// same X twice is the same cryptogram sent again: a captured read replayed. The freshness window
/// catches old replays by their timestamp; this cache catches the ones inside it.
///
/// How long a key is kept: until the cache is full, whatever its age. Whether a replay is too old
/// to matter is the freshness check's to say, with the window in force when the replay comes
/// (`[vas] freshness_s`, which a reload may change), and it runs on every read. A key forgotten
/// by age would come back: with any fixed retention, a reload that raises the window, or lowers
/// and then raises it, makes a read forgotten under the old window fresh again under the new
/// one. Only a full cache forgets, oldest key first; for a replay to come through that way,
/// more than ``capacity`` distinct reads must come between the read and its replay while the
/// replay is still fresh (``defaultCapacity``: 4096 reads). This is a replay check, not
/// authentication: anyone who has a pass's public key can make new cryptograms for it (§5.4).
///
/// Thread-safe: one lock guards the table; every reader's session records here.
public final class VASReplayCache: Sendable {
    /// Keys kept at most, by default.
    public static let defaultCapacity = 4096

    private struct State {
        /// Phone keys in the order they were first seen (oldest first), from `head`.
        var order: [[UInt8]] = []
        var head = 0
        /// Phone key X → when it was first seen.
        var seen: [[UInt8]: Date] = [:]

        var count: Int { order.count - head }

        mutating func dropOldest() {
            seen[order[head]] = nil
            head += 1
            if head >= 64 && head * 2 >= order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    /// The most keys held.
    public let capacity: Int
    private let state = Mutex(State())

    /// An empty cache holding at most `capacity` keys (at least 1).
    public init(capacity: Int = VASReplayCache.defaultCapacity) {
        precondition(capacity >= 1, "a VASReplayCache holds at least one key")
        self.capacity = capacity
    }

    /// How many keys are held now.
    public var count: Int { state.withLock { $0.count } }

    /// Records `cryptogram`'s one-time phone key, seen at `now`.
    ///
    /// - Returns: when the key was first seen, if it is held (the read is a replay, however long
    ///   ago: the caller's freshness check judges the age); `nil` for a key never seen, or
    ///   forgotten since because the cache was full.
    public func record(_ cryptogram: VASCryptogram, at now: Date) -> Date? {
        let key = cryptogram.ephemeralX
        return state.withLock { state -> Date? in
            if let firstSeen = state.seen[key] { return firstSeen }
            while state.count >= capacity { state.dropOldest() }
            state.order.append(key)
            state.seen[key] = now
            return nil
        }
    }
}
