import NIOCore
import NIOHTTP1
import PassTapHTTP
import Prometheus

/// The metrics listener's one route: `GET /metrics` gets the registry's text (Prometheus
/// exposition format 0.0.4, written by swift-prometheus), any other path 404, any other method
/// 405. (The `Host` check comes first, in ``HTTPListener``.)
struct MetricsRoutes: Sendable {
    /// The Content-Type of Prometheus' text format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let registry: PrometheusCollectorRegistry

    func respond(to request: HTTPRequestHead) -> HTTPResponse {
        if request.path != "/metrics" {
            return .text(.notFound, "not found: only GET /metrics is served\n")
        }
        if request.method != .GET {
            return .text(.methodNotAllowed, "method not allowed: only GET /metrics is served\n", headers: [("Allow", "GET")])
        }
        return HTTPResponse(status: .ok, headers: HTTPHeaders([("Content-Type", Self.contentType)]), body: ByteBuffer(bytes: registry.emitToBuffer()))
    }
}
