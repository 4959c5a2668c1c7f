/// The params of the `events.dropped` notification: `{"count": 12, "first_seq": 80, "last_seq": 95}`.
///
/// Sent when this client's queue overflowed (`count` = events of the subscribed kinds lost
/// between `first_seq` and `last_seq`), or first of all when `since` was older than the buffer
/// (`count` = sequence numbers in the gap). It is not an event and has no `seq` of its own.
public struct EventsDroppedParams: Sendable, Hashable, Codable {
    /// How many were lost.
    public var count: UInt64
    /// The first lost sequence number.
    public var firstSeq: UInt64
    /// The last lost sequence number.
    public var lastSeq: UInt64

    /// Creates the params.
    public init(count: UInt64, firstSeq: UInt64, lastSeq: UInt64) {
        self.count = count
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
    }

    private enum CodingKeys: String, CodingKey {
        case count
        case firstSeq = "first_seq"
        case lastSeq = "last_seq"
    }
}
