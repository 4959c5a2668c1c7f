import Synchronization

/// The configuration the daemon runs with now, shared by every component that reads its settings
/// while running, and swapped whole by a reload (SIGHUP).
///
/// One lock guards one immutable ``Configuration`` value: a reader takes a snapshot
/// (``current``) and works with it, so a tap started before a reload finishes with the old
/// settings and never sees half of two configurations.
public final class LiveConfiguration: Sendable {
    private let value: Mutex<Configuration>

    /// Holds `configuration` until the first ``replace(with:)``.
    public init(_ configuration: Configuration) {
        value = Mutex(configuration)
    }

    /// A snapshot of the configuration in force.
    public var current: Configuration { value.withLock { $0 } }

    /// Puts `configuration` in force and returns the one it replaces.
    @discardableResult
    public func replace(with configuration: Configuration) -> Configuration {
        value.withLock { held in
            let old = held
            held = configuration
            return old
        }
    }
}
