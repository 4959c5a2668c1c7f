package import ConfigKit
public import PassTapCore

/// `[metrics]`: the Prometheus listener's table (docs/operations.md, "Metrics").
package enum MetricsSection: ConfigSection {
    package static let table = "metrics"
    package static let opensFiles = false
    package static let keys = ["metrics.listen", "metrics.max_connections"]
    /// Both listener settings: the listener is bound once, at start.
    package static let settings: [ConfigSetting] = [
        .restartOnly("metrics.listen", \.metrics.listen),
        .restartOnly("metrics.max_connections", \.metrics.maxConnections),
    ]

    /// Reads `[metrics]`: where the listener binds, and how many connections it holds.
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        if let listen = try table.string("listen") {
            guard let address = ListenAddress.parse(listen) else {
                throw table.error("listen", "expected \(ListenAddress.expectation), found \"\(listen)\"")
            }
            configuration.metrics.listen = address
        }
        configuration.metrics.maxConnections =
            try table.integer("max_connections", in: 1...1024) ?? configuration.metrics.maxConnections
        try table.rejectUnknownKeys()
    }
}
