public import Logging
import Synchronization

/// The daemon's log level (`[log] level`), changeable while it runs: a reload sets it, and every
/// ``ReloadableLevelLogHandler`` reads it on each message.
public final class LogLevelSetting: Sendable {
    private let raw: Atomic<Int>

    /// Starts at `level`.
    public init(_ level: Logger.Level) {
        raw = Atomic(Self.allLevels.firstIndex(of: level) ?? 0)
    }

    private static let allLevels = Logger.Level.allCases

    /// The level in force.
    public var level: Logger.Level {
        get { Self.allLevels[raw.load(ordering: .relaxed)] }
        set { raw.store(Self.allLevels.firstIndex(of: newValue) ?? 0, ordering: .relaxed) }
    }
}

/// A `LogHandler` whose level is a shared ``LogLevelSetting`` (so a reload changes the level of
/// every logger at once), unless a logger sets its own, which then holds for that logger only.
/// Everything else is the wrapped handler's.
public struct ReloadableLevelLogHandler: LogHandler {
    private var wrapped: any LogHandler
    private let setting: LogLevelSetting
    private var ownLevel: Logger.Level?

    /// Wraps `handler`, taking its level from `setting`.
    public init(wrapping handler: any LogHandler, setting: LogLevelSetting) {
        wrapped = handler
        wrapped.logLevel = .trace  // this handler filters
        self.setting = setting
    }

    public var logLevel: Logger.Level {
        get { ownLevel ?? setting.level }
        set { ownLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        wrapped.log(event: event)
    }
}
