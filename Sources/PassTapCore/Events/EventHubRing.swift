/// The fixed-capacity ring of the most recent events the ``EventHub`` keeps for replay.
///
/// Events are appended in `seq` order, so the ring is sorted and the oldest one is overwritten
/// once it is full. Not thread-safe on its own: the hub's lock guards it.
struct EventHubRing: Sendable {
    private var storage: [Event?]
    private var head = 0  // index of the oldest event
    private(set) var count = 0

    /// A ring holding at most `capacity` events (`capacity` >= 1).
    init(capacity: Int) {
        precondition(capacity >= 1, "EventHubRing needs room for at least one event")
        storage = Array(repeating: nil, count: capacity)
    }

    /// The sequence number of the oldest event held, or `nil` when empty.
    var oldestSeq: UInt64? { count == 0 ? nil : storage[head]?.seq }

    /// Adds `event`, evicting the oldest one if the ring is full.
    mutating func append(_ event: Event) {
        let capacity = storage.count
        if count < capacity {
            storage[(head + count) % capacity] = event
            count += 1
        } else {
            storage[head] = event
            head = (head + 1) % capacity
        }
    }

    /// The held events with `seq >= since`, oldest first.
    func events(since: UInt64) -> [Event] {
        guard let oldest = oldestSeq else { return [] }
        // Sequence numbers in the ring are consecutive, so the start index is arithmetic.
        let skip = since > oldest ? Int(min(since - oldest, UInt64(count))) : 0
        var result: [Event] = []
        result.reserveCapacity(count - skip)
        for offset in skip..<count {
            if let event = storage[(head + offset) % storage.count] { result.append(event) }
        }
        return result
    }
}
