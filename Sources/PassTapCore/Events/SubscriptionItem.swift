/// One thing an ``EventSubscription`` delivers: an event, or the notice that some were lost.
public enum SubscriptionItem: Sendable, Hashable {
    /// The next event for this subscriber, in `seq` order, shared with every other subscriber it
    /// reaches (encode it with ``PublishedEvent/line(for:encode:)`` in the subscription's view).
    case event(PublishedEvent)
    /// Events with sequence numbers `firstSeq...lastSeq` were not delivered: they left the replay
    /// buffer before the subscriber asked for them, or the subscriber's queue was full.
    ///
    /// `count` is how many were lost: for a full queue, the events (of the subscribed kinds) that
    /// were dropped; for a `since` older than the buffer, the sequence numbers in the gap. The
    /// subscriber can resubscribe with `since: firstSeq` to ask for them again (if still buffered).
    case dropped(count: UInt64, firstSeq: UInt64, lastSeq: UInt64)
}
