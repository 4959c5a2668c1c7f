public import CoreMetrics
public import PassTapCore
public import PassTapServer
import VASSettings

/// Apple VAS as the daemon runs it (docs/vas-keys.md): its series (``VASMetrics``: an event observer,
/// and a reload observer for the merchant labels) when `/metrics` is served. The session's VAS
/// exchange is the tap coordinator's (Core), planned from `[vas]` (``Configuration/VAS``); the
/// `pass.read` method is the core's, since either wallet answers it.
package struct VASSlice: FeatureSlice {
    package let name = "vas"
    /// The series; `nil` without the metrics slice's factory.
    package let metrics: VASMetrics?

    /// VAS for the merchants `live` starts with; its series are made on `metrics`, the metrics
    /// slice's factory (none without `[metrics] listen`).
    package init(live: LiveConfiguration, metrics: (any MetricsFactory)?) {
        self.metrics = metrics.map { VASMetrics(factory: $0, merchants: live.current.vas.passTypeIDs) }
    }

    package var eventObserver: (any PublishedEventObserver)? { metrics }
    package var configurationObserver: (any ConfigurationObserver)? { metrics }
}
