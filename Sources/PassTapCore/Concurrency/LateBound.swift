import Synchronization

/// A value set once it exists, read from any thread: for parts that must know each other (the
/// event hub and the forwarder that publishes through it; the outbox writer and the forwarder).
public final class LateBound<Value: Sendable>: Sendable {
    private let held = Mutex<Value?>(nil)

    /// Nothing bound yet.
    public init() {}

    /// The value once bound; `nil` before.
    public var value: Value? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}
