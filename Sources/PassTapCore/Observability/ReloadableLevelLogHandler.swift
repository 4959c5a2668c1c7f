public import Logging

/// A `LogHandler` whose level is `[log] level` of the ``LiveConfiguration`` (so a reload changes
/// the level of every logger at once), unless a logger sets its own, which then holds for that
/// logger only.
/// Everything else is the wrapped handler's.
public struct ReloadableLevelLogHandler: LogHandler {
    private var wrapped: any LogHandler
    private let live: LiveConfiguration
    private var ownLevel: Logger.Level?

    /// Wraps `handler`, taking its level from `live`.
    public init(wrapping handler: any LogHandler, live: LiveConfiguration) {
        wrapped = handler
        wrapped.logLevel = .trace  // this handler filters
        self.live = live
    }

    public var logLevel: Logger.Level {
        get { ownLevel ?? live.logLevel }
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
