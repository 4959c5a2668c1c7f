/// Why ``EventHub/subscribe(since:kinds:queueLimit:)`` refused a subscription.
public enum EventHubError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `since` is above the next sequence number the hub will assign: it names an event that does
    /// not exist yet (perhaps a `seq` from a previous daemon run; compare `instance`).
    /// Subscribe with `since` at most `nextSeq`, or without `since` for the live stream only.
    case sinceInFuture(since: UInt64, nextSeq: UInt64)
    /// `queueLimit` is below 1: a subscriber must be able to hold at least one event.
    case invalidQueueLimit(Int)

    public var description: String {
        switch self {
        case .sinceInFuture(let since, let nextSeq):
            return "since \(since) is beyond the next sequence number \(nextSeq) "
                + "(a seq from an earlier daemon run?): use since <= \(nextSeq), or omit it"
        case .invalidQueueLimit(let limit):
            return "queue limit \(limit) is below 1: a subscriber must be able to hold one event"
        }
    }
}
