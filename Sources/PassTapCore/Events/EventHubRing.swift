/// The ring of the most recent events the ``EventHub`` keeps for replay, bounded in count and in
/// bytes.
///
/// Events are appended in `seq` order, so the ring is sorted; the oldest ones are evicted while it
/// holds more than `capacity` events or more than `maximumBytes` bytes (each event counted at the
/// size the hub measured for it). The newest event is always kept, whatever its size. Not
/// thread-safe on its own: the hub's lock guards it.
struct EventHubRing: Sendable {
    private var storage: [(published: PublishedEvent, size: Int)?]
    private var head = 0  // index of the oldest event
    private(set) var count = 0
    /// The sizes of the held events, added up.
    private(set) var bytes = 0
    /// The byte bound.
    let maximumBytes: Int

    /// A ring holding at most `capacity` events (>= 1) and `maximumBytes` bytes (>= 1).
    init(capacity: Int, maximumBytes: Int = .max) {
        precondition(capacity >= 1, "EventHubRing needs room for at least one event")
        precondition(maximumBytes >= 1, "EventHubRing needs room for at least one byte")
        storage = Array(repeating: nil, count: capacity)
        self.maximumBytes = maximumBytes
    }

    /// The sequence number of the oldest event held, or `nil` when empty.
    var oldestSeq: UInt64? { count == 0 ? nil : storage[head]?.published.event.seq }

    /// Adds `event`, of `size` bytes, evicting the oldest ones until both bounds hold.
    mutating func append(_ event: PublishedEvent, size: Int) {
        let capacity = storage.count
        while count > 0 && (count == capacity || bytes + size > maximumBytes) {
            evictOldest()
        }
        storage[(head + count) % capacity] = (event, size)
        count += 1
        bytes += size
    }

    private mutating func evictOldest() {
        bytes -= storage[head]?.size ?? 0
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
    }

    /// The most events it holds.
    var capacity: Int { storage.count }

    /// A ring with new bounds holding the newest of these events that fit them, with their
    /// sequence numbers (a reload changing `[events] buffer` or `buffer_bytes`).
    func resized(capacity: Int, maximumBytes: Int) -> EventHubRing {
        var ring = EventHubRing(capacity: capacity, maximumBytes: maximumBytes)
        for offset in 0..<count {
            if let held = storage[(head + offset) % storage.count] { ring.append(held.published, size: held.size) }
        }
        return ring
    }

    /// The held events with `seq >= since`, oldest first.
    func events(since: UInt64) -> [PublishedEvent] {
        guard let oldest = oldestSeq else { return [] }
        // Sequence numbers in the ring are consecutive, so the start index is arithmetic.
        let skip = since > oldest ? Int(min(since - oldest, UInt64(count))) : 0
        var result: [PublishedEvent] = []
        result.reserveCapacity(count - skip)
        for offset in skip..<count {
            if let held = storage[(head + offset) % storage.count] { result.append(held.published) }
        }
        return result
    }
}
