public import Logging
import Synchronization

/// The one owner of the configuration the daemon runs with: every component that reads settings
/// while running is handed this object, and a reload (SIGHUP) swaps its configuration whole.
///
/// It holds two things:
/// - ``current``, the effective settings. One lock guards one immutable ``Configuration`` value: a
///   reader takes a snapshot and works with it, so a tap started before a reload finishes with the
///   old settings and never sees half of two configurations.
/// - ``bound``, the configuration the daemon started with, which the listeners were bound with
///   (the Unix socket's path, mode, group and `max_clients`; the metrics and web listeners). Its
///   restart-only settings (each feature's and the core's reload rows say which, see
///   `ConfigSetting`) hold until a restart: a reload keeps their running values in ``current``
///   too (see `ReloadPlan`), and names the ones its file changed. Read only those from here.
///
/// Components that must act on a change (not only read the next snapshot) adopt
/// ``ConfigurationObserver``; the reloader tells them after ``replace(with:)``.
public final class LiveConfiguration: Sendable {
    private let value: Mutex<Configuration>
    /// `[log] level` of ``current``, kept apart so a log call reads it without the lock (every
    /// logger asks for it on each message, see ``ReloadableLevelLogHandler``); set only with
    /// ``current``, under its lock.
    private let level: Atomic<Int>
    private static let allLevels = Logger.Level.allCases

    /// The configuration the daemon started with, that the listeners were bound with: read its
    /// restart-only settings (`[socket] path`, `[web] listen`), never a reloadable one.
    public let bound: Configuration

    /// Holds `configuration` until the first ``replace(with:)``.
    public init(_ configuration: Configuration) {
        value = Mutex(configuration)
        level = Atomic(Self.allLevels.firstIndex(of: configuration.logLevel) ?? 0)
        bound = configuration
    }

    /// A snapshot of the configuration in force.
    public var current: Configuration { value.withLock { $0 } }

    /// `[log] level` of the configuration in force.
    public var logLevel: Logger.Level { Self.allLevels[level.load(ordering: .relaxed)] }

    /// Puts `configuration` in force and returns the one it replaces.
    @discardableResult
    public func replace(with configuration: Configuration) -> Configuration {
        value.withLock { held in
            let old = held
            held = configuration
            level.store(Self.allLevels.firstIndex(of: configuration.logLevel) ?? 0, ordering: .relaxed)
            return old
        }
    }
}
