/// The result of `events.subscribe`, sent before any notification of the subscription.
///
/// `{"instance": "6F1C...", "oldest_seq": 1, "next_seq": 42}`: events from `since` up to
/// `next_seq - 1` follow as the replay, then the live stream from `next_seq`.
public struct EventsSubscribeResult: Sendable, Hashable, Codable {
    /// The daemon's instance id; sequence numbers only compare within one instance.
    public var instance: String
    /// The oldest sequence number still buffered (`next_seq` when none is).
    public var oldestSeq: UInt64
    /// The sequence number the next new event will get.
    public var nextSeq: UInt64

    /// Creates the answer.
    public init(instance: String, oldestSeq: UInt64, nextSeq: UInt64) {
        self.instance = instance
        self.oldestSeq = oldestSeq
        self.nextSeq = nextSeq
    }

    private enum CodingKeys: String, CodingKey {
        case instance
        case oldestSeq = "oldest_seq"
        case nextSeq = "next_seq"
    }
}
