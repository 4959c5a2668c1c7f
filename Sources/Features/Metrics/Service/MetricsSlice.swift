public import Logging
import MetricsSettings
public import MetricsKit
public import CoreMetrics
public import PassTapCore
import PassTapHTTP
public import PassTapServer
import Prometheus

/// Metrics as the daemon runs them (docs/operations.md, "Metrics"): with `[metrics] listen`, the
/// recorder (an event observer, the session observer, and the factory the other slices make
/// their series on) and the `/metrics`
/// listener, whose being down is its problem in `status`. Without it, a slice that adds nothing.
package struct MetricsSlice: FeatureSlice {
    package let name = "metrics"
    /// The recorder; `nil` when `[metrics] listen` is not set. Other slices report to it
    /// (forwarding's deliveries, the web's clients).
    package let recorder: DaemonMetrics?
    private let listen: ListenAddress?
    private let maximumConnections: Int
    private let logger: Logger
    /// The listener's problem, once its service exists.
    private let server = LateBound<MetricsServer>()

    /// Metrics for the listener `live` was started with, with the other slices'
    /// `histogramBuckets` (forwarding's latency).
    package init(live: LiveConfiguration, histogramBuckets: HistogramBuckets, logger: Logger) {
        listen = live.bound.metrics.listen
        maximumConnections = live.bound.metrics.maxConnections
        recorder = listen.map { _ in
            DaemonMetrics(
                registry: PrometheusCollectorRegistry(), version: PassTapVersion.string, histogramBuckets: histogramBuckets)
        }
        self.logger = logger
    }

    /// What the socket server tells the recorder (clients, dropped events); nothing without one.
    package var clientObserver: SocketServerObserver {
        recorder.map { metrics in
            SocketServerObserver(clientsChanged: metrics.clientsChanged(by:), eventsDropped: metrics.eventsDropped(_:))
        } ?? .none
    }

    /// Where the other slices make their own series (forwarding's); `nil` without the listener.
    package var factory: (any MetricsFactory)? { recorder?.factory }

    package var eventObserver: (any PublishedEventObserver)? { recorder }
    package func problems() -> [String] { server.value?.problem.map { [$0] } ?? [] }

    /// The listener, on the sockets systemd passed as `metrics` or bound here. Not awaited
    /// before the daemon is ready: a port in use leaves only this listener down.
    package func services(_ host: inout SliceHost) -> SliceServices {
        guard let recorder, let listen else { return SliceServices() }
        let sockets = host.takePassedSockets(name).map { ListenerSockets.adopting($0, name: name, address: listen, anyLoopbackOfPort: false) }
        let metricsServer = MetricsServer(
            address: listen, sockets: sockets ?? .bind(listen), registry: recorder.registry, logger: logger,
            maximumConnections: maximumConnections)
        server.value = metricsServer
        return SliceServices(inner: [metricsServer])
    }
}
