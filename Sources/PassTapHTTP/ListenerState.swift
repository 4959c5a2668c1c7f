import NIOCore

/// Where an ``HTTPListener`` stands now: the channels it listens on, and why it is down when it
/// is. Unlike its first bind (a ``OneShot`` that ``HTTPListener/waitUntilListening()`` waits
/// for), this state goes down and comes back: a failed bind sets ``problem``, the next good one
/// clears it.
struct ListenerState {
    /// The listening channels (empty while down, and after the listener closed them).
    var channels: [any Channel] = []
    /// Why the listener is not serving now; `nil` while it listens and before its first try.
    var problem: String?
}
