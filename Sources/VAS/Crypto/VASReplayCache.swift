public import Foundation
import Synchronization

/// The one-time phone keys of the cryptograms already read, to tell a replayed read from a new one.
///
/// A phone makes a new random P-256 key for every cryptogram (vas-protocol.md §5.1, bytes 4..<36
/// of `9F27` are its X; Apple Platform Security: "a single-use random ECDH P-256 key"), so the
/// same X twice is the same cryptogram sent again: a captured read replayed. The freshness window
/// catches old replays by their timestamp; this cache catches the ones inside it.
///
/// How long a key is kept: a cryptogram whose timestamp T was accepted at host time t had
/// |T − t| ≤ W (the freshness window), so a replay at t' is fresh only while t' ≤ T + W ≤ t + 2W.
/// Each key is therefore kept `keepFor` = 2W from its first sighting (the caller passes it), which
/// outlives the window; with the freshness check off (`nil`) keys stay until the cache is full.
///
/// Bounded: at most ``capacity`` keys (32 bytes each). When it is full the oldest key is forgotten
/// early; that takes more distinct reads within 2W than ``defaultCapacity`` (4096 in two minutes
/// at the default 60 s window). This is a replay check, not authentication: anyone who has a
/// pass's public key can make new cryptograms for it (§5.4).
///
/// Thread-safe: one lock guards the table; every reader's session records here.
public final class VASReplayCache: Sendable {
    /// Keys kept at most, by default.
    public static let defaultCapacity = 4096

    private struct Sighting {
        var key: [UInt8]
        var firstSeen: Date
        var expires: Date?
    }

    private struct State {
        /// Sightings in the order they were recorded (oldest first), from `head`.
        var order: [Sighting] = []
        var head = 0
        /// Phone key X → when it was first seen.
        var seen: [[UInt8]: Date] = [:]

        var count: Int { order.count - head }

        mutating func dropOldest() {
            seen[order[head].key] = nil
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

    /// Records `cryptogram`'s one-time phone key, seen at `now` and kept for `keepFor` seconds
    /// (`nil`: until the cache is full).
    ///
    /// - Returns: when the key was first seen, if it was already held (the read is a replay);
    ///   `nil` for a key never seen, or forgotten since.
    public func record(_ cryptogram: VASCryptogram, at now: Date, keepFor: TimeInterval?) -> Date? {
        let key = cryptogram.ephemeralX
        return state.withLock { state -> Date? in
            // Sightings are recorded in time order, so the expired ones are at the front.
            while state.count > 0, let expires = state.order[state.head].expires, expires < now {
                state.dropOldest()
            }
            if let firstSeen = state.seen[key] { return firstSeen }
            while state.count >= capacity { state.dropOldest() }
            state.order.append(Sighting(key: key, firstSeen: now, expires: keepFor.map { now.addingTimeInterval($0) }))
            state.seen[key] = now
            return nil
        }
    }
}
