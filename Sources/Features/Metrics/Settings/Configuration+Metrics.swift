public import PassTapCore

extension Configuration {
    /// `[metrics]`: the optional Prometheus listener. Off unless `listen` is set; a restart-only
    /// setting.
    public struct Metrics: FeatureSettings {
        /// `listen`: where `GET /metrics` is served; `nil` (the default) serves nothing.
        public var listen: ListenAddress? = nil
        /// `max_connections`: how many connections the listener holds at once; one more is closed
        /// as soon as it is accepted. Scrapers are few and each takes one short connection.
        public var maxConnections: Int = 8

        /// The defaults of the shipped config (off).
        public init() {}
    }

    /// `[metrics]`, kept in ``Configuration/features`` (its defaults when the file has no such table).
    public var metrics: Metrics {
        get { self[Metrics.self] }
        set { self[Metrics.self] = newValue }
    }
}
