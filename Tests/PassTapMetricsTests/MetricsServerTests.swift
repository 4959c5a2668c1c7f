import Foundation
import Logging
import NIOCore
import NIOPosix
import PassTapCore
import PassTapTestSupport
import Prometheus
import ServiceLifecycle
import Testing

@testable import PassTapMetrics

/// The real NIO listener on 127.0.0.1, port 0, fetched over TCP.
@Suite(.timeLimit(.minutes(1))) struct MetricsServerTests {
    struct Answer {
        var statusLine: String
        var headers: [String: String]
        var body: String
    }

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

    /// Sends `request` as bytes and reads until the server closes the connection.
    func exchange(_ request: String, with address: SocketAddress) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(to: address) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            if !request.isEmpty { try await outbound.write(ByteBuffer(string: request)) }
            var received = ""
            do {
                for try await var chunk in inbound { received += chunk.readString(length: chunk.readableBytes) ?? "" }
            } catch let error as ChannelError where error == .inputClosed || error == .eof {
                // Closed by the server: what we have is the whole answer.
            }
            return received
        }
    }

    /// Connects, sends `request` and returns what comes back before the server ends the
    /// connection, whether by closing it or by resetting it (a request sent to a connection the
    /// server already closed is answered with a reset, or finds it closed before it is written).
    func answerOrNothing(_ request: String, with address: SocketAddress) async throws -> String {
        do {
            return try await exchange(request, with: address)
        } catch let error as IOError where error.errnoCode == ECONNRESET || error.errnoCode == EPIPE {
            return ""
        } catch ChannelError.ioOnClosedChannel {
            return ""
        }
    }

    func parsed(_ raw: String) throws -> Answer {
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let head = try #require(parts.first).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(statusLine: head[0], headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    func metrics() -> DaemonMetrics {
        DaemonMetrics(registry: PrometheusCollectorRegistry(), merchants: [], version: "1.2.3")
    }

    @Test func getMetricsAnswersWithTheRegistryInPrometheusTextFormat() async throws {
        let metrics = metrics()
        metrics.observe(.backendUp, nil, .backend(name: "pcsc", reason: nil))
        try await withServer(metrics) { address in
            let answer = try parsed(try await exchange("GET /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address))
            #expect(answer.statusLine == "HTTP/1.1 200 OK")
            #expect(answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(answer.headers["connection"] == "close")
            #expect(answer.headers["content-length"] == "\(answer.body.utf8.count)")
            let text = try PrometheusText(answer.body)
            #expect(text.value(DaemonMetrics.Name.backendUp, ["backend": "pcsc"]) == 1)
            #expect(text.value(DaemonMetrics.Name.buildInfo, ["version": "1.2.3"]) == 1)
            // Scraped again, a change shows.
            metrics.observe(.backendDown, nil, .backend(name: "pcsc", reason: "gone"))
            let again = try PrometheusText(try parsed(try await exchange("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:\(address.port!)\r\n\r\n", with: address)).body)
            #expect(again.value(DaemonMetrics.Name.backendUp, ["backend": "pcsc"]) == 0)
        }
    }

    @Test func otherPathsGet404AndOtherMethods405() async throws {
        try await withServer(metrics()) { address in
            let missing = try parsed(try await exchange("GET / HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address))
            #expect(missing.statusLine == "HTTP/1.1 404 Not Found")
            let deeper = try parsed(try await exchange("GET /metrics/x HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address))
            #expect(deeper.statusLine == "HTTP/1.1 404 Not Found")
            let post = try parsed(try await exchange("POST /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\nContent-Length: 2\r\n\r\nhi", with: address))
            #expect(post.statusLine == "HTTP/1.1 405 Method Not Allowed")
            #expect(post.headers["allow"] == "GET")
            let head = try parsed(try await exchange("HEAD /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address))
            #expect(head.statusLine == "HTTP/1.1 405 Method Not Allowed")
            let garbage = try await exchange("NOT HTTP AT ALL\r\n\r\n", with: address)
            #expect(!garbage.contains(" 200 "))
            // Still serving after all that.
            let fine = try parsed(try await exchange("GET /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address))
            #expect(fine.statusLine == "HTTP/1.1 200 OK")
        }
    }

    @Test func anOversizedRequestHeadIsCutOffWithoutAnAnswer() async throws {
        try await withServer(metrics()) { address in
            let padding = String(repeating: "a", count: MetricsServer.maximumRequestBytes)
            let raw = try await exchange("GET /metrics HTTP/1.1\r\nX-Padding: \(padding)\r\n\r\n", with: address)
            #expect(!raw.contains(" 200 "))
            let fine = try parsed(try await exchange("GET /metrics HTTP/1.1\r\nHost: localhost:\(address.port!)\r\n\r\n", with: address))
            #expect(fine.statusLine == "HTTP/1.1 200 OK")
        }
    }

    @Test func aConnectionThatSendsNothingIsClosedAtTheDeadline() async throws {
        try await withServer(metrics(), requestDeadline: .milliseconds(200)) { address in
            // Returns only because the server closes the connection.
            let raw = try await exchange("", with: address)
            #expect(raw.isEmpty)
            let slow = try await exchange("GET /metr", with: address)
            #expect(slow.isEmpty)
        }
    }

    @Test func anAddressInUseFailsTheStartNamingIt() async throws {
        try await withServer(metrics()) { address in
            let port = try #require(address.port)
            let second = MetricsServer(
                address: ListenAddress(host: "127.0.0.1", port: port), registry: PrometheusCollectorRegistry(),
                logger: Logger(label: "passtap.test.metrics"))
            await #expect(throws: MetricsServerError.self) { try await second.run() }
            do {
                _ = try await second.waitUntilListening()
                Issue.record("a second listener on \(port) started")
            } catch let error as MetricsServerError {
                #expect(error.description.contains("127.0.0.1:\(port)"))
                #expect(error.description.contains("[metrics] listen"))
            }
        }
    }

    @Test func aConnectionOverTheCapIsClosedAtOnceAndAFreedSlotServesTheNextScrape() async throws {
        // A request deadline far beyond the suite's time limit: here only the cap closes a connection.
        try await withServer(metrics(), requestDeadline: .seconds(600), maximumConnections: 2) { address, server in
            let port = try #require(address.port)
            let first = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address).get()
            let second = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address).get()
            try await withDeadline("the listener to hold both idle connections") {
                while server.openConnections < 2 { try await Task.sleep(for: .milliseconds(5)) }
            }
            for _ in 0..<3 {
                let refused = try await answerOrNothing("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
                #expect(refused.isEmpty, "a connection over the cap was answered: \(refused)")
            }
            #expect(server.openConnections == 2)
            try await first.close()
            try await withDeadline("the first connection's slot to be given back") {
                while server.openConnections > 1 { try await Task.sleep(for: .milliseconds(5)) }
            }
            let fine = try parsed(try await exchange("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address))
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
            let answer = try parsed(try await exchange("GET /metrics HTTP/1.1\r\nHost: \(header)\r\n\r\n", with: address))
            #expect(answer.statusLine == "HTTP/1.1 \(status)", "Host: \(header)")
            #expect(answer.headers["connection"] == "close")
            if status != "200 OK" { #expect(!answer.body.contains("passtap_"), "Host: \(header)") }
        }
    }

    @Test func aRequestWithoutOneHostHeaderGets400() async throws {
        try await withServer(metrics()) { address in
            let port = try #require(address.port)
            let none = try parsed(try await exchange("GET /metrics HTTP/1.0\r\n\r\n", with: address))
            #expect(none.statusLine == "HTTP/1.0 400 Bad Request")
            let two = try parsed(
                try await exchange("GET /metrics HTTP/1.1\r\nHost: localhost:\(port)\r\nHost: rebound.example\r\n\r\n", with: address))
            #expect(two.statusLine == "HTTP/1.1 400 Bad Request")
        }
    }
}

/// The `Host` rule for listeners that are not on a loopback address.
@Suite struct HostHeaderCheckTests {
    @Test func aListenerOnAnAddressAcceptsThatAddressAndLoopbackOnly() {
        let check = HostHeaderCheck(listen: ListenAddress(host: "192.0.2.10", port: 9466))
        #expect(check.accepts("192.0.2.10:9466", port: 9466))
        #expect(check.accepts("localhost:9466", port: 9466))
        #expect(!check.accepts("192.0.2.11:9466", port: 9466))
        #expect(!check.accepts("metrics.example:9466", port: 9466))
        let v6 = HostHeaderCheck(listen: ListenAddress(host: "2001:db8::1", port: 9466))
        #expect(v6.accepts("[2001:DB8:0::1]:9466", port: 9466))
        #expect(!v6.accepts("[2001:db8::2]:9466", port: 9466))
    }

    @Test func aWildcardListenerAcceptsAnyAddressButNoName() {
        for host in ["0.0.0.0", "::"] {
            let check = HostHeaderCheck(listen: ListenAddress(host: host, port: 80))
            #expect(check.accepts("198.51.100.7", port: 80))
            #expect(check.accepts("[2001:db8::7]:80", port: 80))
            #expect(!check.accepts("metrics.example", port: 80))
            #expect(!check.accepts("198.51.100.7:81", port: 80))
        }
    }
}
