public import ForwardSettings
import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
public import PassTapCore
import PassTapProtocol

/// A `[[forward.webhooks]]` endpoint: one signed HTTPS POST per event (Standard Webhooks), on
/// async-http-client.
///
/// Each request carries the event's envelope (``ForwardEnvelope/body(for:)``) as
/// `application/json`, and the Standard Webhooks headers: `webhook-id` (the event's id, the same
/// on every attempt), `webhook-timestamp` (this attempt's time in Unix seconds: every retry is
/// signed again, as receivers refuse old timestamps) and `webhook-signature`
/// (``WebhookSignature``). The answer's meaning is ``WebhookReply``'s.
///
/// TLS trusts the system's store plus `ca_file` when set. `timeout_ms` bounds each request,
/// connecting and TLS included. Redirects are not followed. `HTTPS_PROXY` and the other proxy
/// variables are not read: async-http-client reads no environment, and this sink sets no proxy
/// (docs/fleet.md, "Webhooks").
///
/// Errors it reports name the status or the failure, never the secret, the signature, the body
/// or the URL's path and query (which may hold a token).
public final class WebhookSink: ForwardSink {
    public let settings: Configuration.ForwardSinkSettings
    /// One event per request.
    public var batchLimit: Int { 1 }

    private let configuration: Configuration.ForwardWebhook
    private let client: HTTPClient
    private let logger: Logger
    private let clock: DaemonClock
    /// `host:port` of the URL: what errors name.
    private let target: String

    /// `passtapd/VERSION`.
    public static let userAgent = "passtapd/\(PassTapVersion.string)"

    /// A sink for `configuration`; `clock`'s wall time gives each attempt's time
    /// (`webhook-timestamp`) and the time `Retry-After` dates count from.
    public init(configuration: Configuration.ForwardWebhook, logger: Logger, clock: DaemonClock = .system) {
        self.configuration = configuration
        self.settings = Configuration.ForwardSinkConfiguration.webhook(configuration).settings
        self.logger = logger
        self.clock = clock
        let scheme = configuration.url.scheme?.lowercased() ?? "https"
        let port = configuration.url.port ?? (scheme == "http" ? 80 : 443)
        let host = configuration.url.host ?? "?"
        self.target = "\(host.contains(":") ? "[\(host)]" : host):\(port)"

        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = configuration.caFile {
            tls.additionalTrustRoots = [.file(caFile)]
        }
        let timeout = TimeAmount.milliseconds(Int64(configuration.timeoutMilliseconds))
        let http = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout),
            proxy: nil, decompression: .disabled)
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: http)
    }

    public func deliver(_ batch: [OutboxItem]) async -> DeliveryOutcome {
        guard let item = batch.first else { return .delivered }
        let body = ForwardEnvelope.body(for: item)
        let timestamp = WebhookSignature.unixSeconds(clock.date)
        let signature = WebhookSignature(secret: configuration.secret, id: item.id, timestamp: timestamp, body: body.readableBytesView)
        var request = HTTPClientRequest(url: configuration.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: Self.userAgent)
        request.headers.add(name: "webhook-id", value: item.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: signature.header)
        request.body = .bytes(body)

        let outcome: DeliveryOutcome
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(configuration.timeoutMilliseconds)))
            // Read the answer's body to its end (so the connection can be reused), up to a bound;
            // what it says does not matter.
            _ = try? await response.body.collect(upTo: Self.maximumAnswerBytes)
            outcome = WebhookReply.outcome(
                status: Int(response.status.code), reason: response.status.reasonPhrase,
                retryAfter: response.headers.first(name: "retry-after"), now: clock.date)
        } catch {
            outcome = .retry(delivered: 0, after: nil, error: describe(error))
        }
        logger.debug(
            "webhook attempt",
            metadata: ["forward.sink": "\(settings.name)", "forward.event_id": "\(item.id)", "forward.outcome": "\(outcome)"])
        return outcome
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    /// The most of an answer's body read before the connection is dropped instead.
    static let maximumAnswerBytes = 65_536

    /// A request failure as `forward.status`'s `last_error` (text) and `last_error_reason` show it.
    private func describe(_ error: any Error) -> ForwardFailure {
        switch error {
        case let error as HTTPClientError
        where [.deadlineExceeded, .readTimeout, .connectTimeout, .tlsHandshakeTimeout].contains(error):
            return ForwardFailure(.timeout, "no answer from \(target) within timeout_ms (\(configuration.timeoutMilliseconds) ms)")
        case _ where ForwardFailure.isTLS(error):
            return ForwardFailure.tls(error, target: target)
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return ForwardFailure(.connectionClosed, "\(target) closed the connection without answering")
        default:
            return ForwardFailure.transport(error, target: target)
        }
    }
}
