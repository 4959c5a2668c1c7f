/// Sees every event the ``EventHub`` publishes, numbered and encoded, in `seq` order, and never
/// loses one to a full queue as a subscriber can: the forwarding outbox's way in.
///
/// The hub calls ``record(_:)`` on the publishing thread (a reader's), while it holds its
/// publishers' lock, so calls arrive one at a time and in order. It must hand the event on and
/// return at once: never write a file, take a slow lock or wait.
public protocol PublishedEventRecorder: Sendable {
    /// Takes one published event (its ``PublishedEvent/line(for:)`` lines are already encoded).
    func record(_ event: PublishedEvent)
}
