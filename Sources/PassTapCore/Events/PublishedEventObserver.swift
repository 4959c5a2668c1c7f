/// The one way daemon code watches what the ``EventHub`` publishes: every event, numbered and
/// encoded, in `seq` order, never lost to a full queue as a subscription's can be. The hub calls
/// its observers (`EventHub(observers:)`) in their order, before it wakes any subscriber, so a
/// client that sees an event finds `status` and `/metrics` already telling of it, and the
/// forwarding outbox already holding it. (Clients, which may fall behind, subscribe instead:
/// ``EventHub/subscribe(since:kinds:queueLimit:view:)``.)
///
/// The hub calls ``observe(_:)`` on the publishing thread (a reader's), while it holds its
/// publishers' lock, so calls arrive one at a time and in order. It must take note or hand the
/// event on and return at once: never write a file, take a slow lock or wait.
public protocol PublishedEventObserver: Sendable {
    /// Sees one published event (its ``PublishedEvent/line(for:)`` lines are already encoded).
    func observe(_ event: PublishedEvent)
}
