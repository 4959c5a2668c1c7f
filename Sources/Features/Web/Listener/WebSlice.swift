public import CoreMetrics
public import Logging
public import PassTapCore
import PassTapHTTP
public import PassTapServer
import WebSettings

/// The web listener as the daemon runs it (docs/web.md): with `[web] listen`, the `/rpc`
/// sessions (a reload observer; `web_clients` in `status`) and the listener for the dashboard and
/// `/rpc`, whose being down is its problem in `status`. Without it, a slice that adds nothing.
package struct WebSlice: FeatureSlice {
    package let name = "web"
    /// `/rpc`'s sessions; `nil` when `[web] listen` is not set.
    package let sessions: WebSessions?
    private let live: LiveConfiguration
    private let logger: Logger
    /// The listener's problem, once its service exists.
    private let server = LateBound<WebServer>()

    /// The web listener `live` was started with; its series (``WebMetrics``) are made on
    /// `metrics`, the metrics slice's factory (none without `[metrics] listen`).
    package init(live: LiveConfiguration, metrics: (any MetricsFactory)?, logger: Logger) {
        let metrics = metrics.map(WebMetrics.init(factory:))
        let observer =
            metrics.map { metrics in
                SocketServerObserver(
                    clientsChanged: { _ in }, eventsDropped: { _ in }, webClientsChanged: metrics.clientsChanged(by:),
                    authFailed: metrics.authFailed(reason:))
            } ?? .none
        sessions = live.bound.web.listen.map { _ in WebSessions(live: live, logger: logger, observer: observer) }
        self.live = live
        self.logger = logger
    }

    package var configurationObserver: (any ConfigurationObserver)? { sessions }
    package func problems() -> [String] { server.value?.problem.map { [$0] } ?? [] }

    package func describeStatus(_ health: inout HealthSources) {
        if let sessions { health.webClients = { sessions.connectedClients } }
    }

    /// The listener, on the sockets systemd passed as `web` (either loopback address of the
    /// port) or holding both loopback addresses here, serving `/rpc` with the socket server's
    /// dispatcher. Not awaited before the daemon is ready: a port in use leaves only this
    /// listener down.
    package func services(_ host: inout SliceHost) -> SliceServices {
        guard let sessions, let listen = live.bound.web.listen else { return SliceServices() }
        let sockets = host.takePassedSockets(name).map { ListenerSockets.adopting($0, name: name, address: listen, anyLoopbackOfPort: true) }
        let webServer = WebServer(
            address: listen, sockets: sockets ?? .holdingBothLoopbacks(listen), live: live, server: host.server, sessions: sessions,
            logger: logger, eventLoopGroup: host.eventLoops)
        server.value = webServer
        return SliceServices(inner: [webServer])
    }
}
