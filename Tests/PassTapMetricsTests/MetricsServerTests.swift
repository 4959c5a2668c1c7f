import MetricsSettings
import Foundation
import Logging
import NIOCore
import NIOPosix
import PassTapCore
import PassTapHTTP
import PassTapTestNetwork
import PassTapTestSupport
import Prometheus
import ServiceLifecycle
import Testing

@testable import PassTapMetrics

/// The real NIO listener on 127.0.0.1, port 0, fetched over TCP.
@Suite(.timeLimit(.minutes(1))) struct MetricsServerTests {
    /// Runs a listener for `metrics` in a service group while `body` runs, then stops it.
    func withServer(
        _ metrics: DaemonMetrics, requestDeadline: TimeAmount = MetricsServer.defaultRequestDeadline, maximumConnections: Int = 8,
        _ body: @Sendable (SocketAddress) async throws -> Void
    ) async throws {
        try await withServer(metrics, requestDeadline: requestDeadline, maximumConnections: maximumConnections) { address, _ in try await body(address) }
    }

    /// As above; `body` also gets the server, to read its connection count.
    func withServer(
        _ metrics: DaemonMetrics, requestDeadline: TimeAmount = MetricsServer.defaultRequestDeadline, maximumConnections: Int = 8,
        _ body: @Sendable (SocketAddress, MetricsServer) async throws -> Void
    ) async throws {
        let server = MetricsServer(
            address: ListenAddress(host: "127.0.0.1", port: 0), registry: metrics.registry, logger: Logger(label: "passtap.test.metrics"),
            requestDeadline: requestDeadline, maximumConnections: maximumConnections)
        let group = ServiceGroup(services: [server], logger: Logger(label: "passtap.test.metrics"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let address = try await server.waitUntilListening()
            do {
                try await body(address, server)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    func metrics() -> DaemonMetrics {
        DaemonMetrics(registry: PrometheusCollectorRegistry(), version: "1.2.3")
    }

    @Test func getMetricsAnswersWithTheRegistryInPrometheusTextFormat() async throws {
        let metrics = metrics()
        metrics.observe(.backendUp, nil, .backend(name: "pcsc", reason: nil))
        try await withServer(metrics) { address in
            let answer = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address)
            #expect(answer.statusLine == "HTTP/1.1 200 OK")
            #expect(answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(answer.headers["connection"] == "close")
            #expect(answer.headers["content-length"] == "\(answer.body.utf8.count)")
            let text = try PrometheusText(answer.body)
            #expect(text.value(DaemonMetrics.Name.backendUp, ["backend": "pcsc"]) == 1)
            #expect(text.value(DaemonMetrics.Name.buildInfo, ["version": "1.2.3"]) == 1)
            // Scraped again, a change shows.
            metrics.observe(.backendDown, nil, .backend(name: "pcsc", reason: "gone"))
            let again = try PrometheusText(try await RawHTTP.answer("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:\(address.port!)\r\n\r\n", with: address).body)
            #expect(again.value(DaemonMetrics.Name.backendUp, ["backend": "pcsc"]) == 0)
        }
    }

    @Test func otherPathsGet404AndOtherMethods405() async throws {
        try await withServer(metrics()) { address in
            let missing = try await RawHTTP.answer("GET / HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address)
            #expect(missing.statusLine == "HTTP/1.1 404 Not Found")
            let deeper = try await RawHTTP.answer("GET /metrics/x HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address)
            #expect(deeper.statusLine == "HTTP/1.1 404 Not Found")
            let post = try await RawHTTP.answer("POST /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\nContent-Length: 2\r\n\r\nhi", with: address)
            #expect(post.statusLine == "HTTP/1.1 405 Method Not Allowed")
            #expect(post.headers["allow"] == "GET")
            let head = try await RawHTTP.answer("HEAD /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address)
            #expect(head.statusLine == "HTTP/1.1 405 Method Not Allowed")
            let garbage = try await RawHTTP.exchange("NOT HTTP AT ALL\r\n\r\n", with: address)
            #expect(!garbage.contains(" 200 "))
            // Still serving after all that.
            let fine = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address)
            #expect(fine.statusLine == "HTTP/1.1 200 OK")
        }
    }

    @Test func anOversizedRequestHeadIsCutOffWithoutAnAnswer() async throws {
        try await withServer(metrics()) { address in
            let padding = String(repeating: "a", count: MetricsServer.maximumRequestBytes)
            let raw = try await RawHTTP.exchange("GET /metrics HTTP/1.1\r\nX-Padding: \(padding)\r\n\r\n", with: address)
            #expect(!raw.contains(" 200 "))
            let fine = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address)
            #expect(fine.statusLine == "HTTP/1.1 200 OK")
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAtTheDeadline() async throws {
        try await withServer(metrics(), requestDeadline: .milliseconds(200)) { address in
            // Returns only because the server closes the connection.
            let raw = try await RawHTTP.exchange("", with: address)
            #expect(raw.isEmpty)
            let slow = try await RawHTTP.exchange("GET /metr", with: address)
            #expect(slow.isEmpty)
        }
    }

    /// A port another process holds leaves the listener down, never the daemon: it says why
    /// (naming the address and the key), keeps trying, and listens once the port is free, without
    /// a restart.
    @Test func anAddressInUseLeavesTheListenerDownNamingItUntilItIsFree() async throws {
        let squatter = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(squatter.localAddress?.port)
        let logger = Logger(label: "passtap.test.metrics")
        let server = MetricsServer(address: ListenAddress(host: "127.0.0.1", port: port), registry: PrometheusCollectorRegistry(), logger: logger)
        let group = ServiceGroup(services: [server], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await waitUntil("the listener to say it is down") { server.problem != nil }
            let problem = try #require(server.problem)
            #expect(problem.contains("127.0.0.1:\(port)") && problem.contains("[metrics] listen") && problem.contains("retrying"), "\(problem)")
            try await squatter.close()
            let bound = try await withDeadline("the listener to listen once the port is free") { try await server.waitUntilListening() }
            #expect(bound.port == port && server.problem == nil)
            let answer = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: bound)
            #expect(answer.statusLine == "HTTP/1.1 200 OK")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test func aConnectionOverTheCapIsClosedAtOnceAndAFreedSlotServesTheNextScrape() async throws {
        // A request deadline far beyond the suite's time limit: here only the cap closes a connection.
        try await withServer(metrics(), requestDeadline: .seconds(600), maximumConnections: 2) { address, server in
            let port = try #require(address.port)
            let first = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address).get()
            let second = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address).get()
            try await waitUntil("the listener to hold both idle connections") { server.openConnections >= 2 }
            for _ in 0..<3 {
                let refused = try await RawHTTP.answerOrNothing("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
                #expect(refused.isEmpty, "a connection over the cap was answered: \(refused)")
            }
            #expect(server.openConnections == 2)
            try await first.close()
            try await waitUntil("the first connection's slot to be given back") { server.openConnections <= 1 }
            let fine = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
            #expect(fine.statusLine == "HTTP/1.1 200 OK")
            try await second.close()
        }
    }

    /// `PORT` is the listener's port; the listener is on 127.0.0.1.
    @Test(arguments: [
        ("localhost:PORT", "200 OK"), ("LocalHost:PORT", "200 OK"), ("127.0.0.1:PORT", "200 OK"), ("127.9.8.7:PORT", "200 OK"),
        ("[::1]:PORT", "200 OK"),
        ("rebound.example:PORT", "421 Misdirected Request"), ("localhost.rebound.example:PORT", "421 Misdirected Request"),
        ("127.0.0.1.rebound.example:PORT", "421 Misdirected Request"), ("10.0.0.1:PORT", "421 Misdirected Request"),
        ("localhost", "421 Misdirected Request"), ("localhost:1", "421 Misdirected Request"), ("localhost:PORT0", "421 Misdirected Request"),
        ("[::1]", "421 Misdirected Request"), ("::1:PORT", "421 Misdirected Request"), (":PORT", "421 Misdirected Request"),
        ("localhost:+PORT", "421 Misdirected Request"),
    ])
    func onlyALoopbackOrListenAddressHostIsServed(host: String, status: String) async throws {
        try await withServer(metrics()) { address in
            let port = try #require(address.port)
            let header = host.replacingOccurrences(of: "PORT", with: "\(port)")
            let answer = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: \(header)\r\n\r\n", with: address)
            #expect(answer.statusLine == "HTTP/1.1 \(status)", "Host: \(header)")
            #expect(answer.headers["connection"] == "close")
            if status != "200 OK" { #expect(!answer.body.contains("passtap_"), "Host: \(header)") }
        }
    }

    @Test func aRequestWithoutOneHostHeaderGets400() async throws {
        try await withServer(metrics()) { address in
            let port = try #require(address.port)
            let none = try await RawHTTP.answer("GET /metrics HTTP/1.0\r\n\r\n", with: address)
            #expect(none.statusLine == "HTTP/1.0 400 Bad Request")
            let two = try await RawHTTP.answer("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\nHost: rebound.example\r\n\r\n", with: address)
            #expect(two.statusLine == "HTTP/1.1 400 Bad Request")
        }
    }
}
