import MetricsSettings
import PassTapCore
import PassTapDaemon
import Testing

/// `[metrics] listen`: off by default; an IPv4 literal, a bracketed IPv6 literal or localhost with
/// a port; anything else refused naming file, line, key and expectation.
@Suite(.timeLimit(.minutes(1))) struct MetricsConfigTests {
    @Test func metricsAreOffByDefault() throws {
        #expect(try ConfigLoader.parse("", file: "t.toml").metrics.listen == nil)
        #expect(try ConfigLoader.parse("[metrics]\n", file: "t.toml").metrics.listen == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:9466", ListenAddress(host: "127.0.0.1", port: 9466)),
        ("0.0.0.0:1", ListenAddress(host: "0.0.0.0", port: 1)),
        ("[::1]:9466", ListenAddress(host: "::1", port: 9466)),
        ("[fe80::1]:65535", ListenAddress(host: "fe80::1", port: 65535)),
        ("localhost:9466", ListenAddress(host: "localhost", port: 9466)),
    ])
    func goodAddressesAreRead(text: String, address: ListenAddress) throws {
        let configuration = try ConfigLoader.parse("[metrics]\nlisten = \"\(text)\"\n", file: "t.toml")
        #expect(configuration.metrics.listen == address)
        #expect(configuration.metrics.listen?.description == text)
    }

    @Test(arguments: [
        "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:+80", "127.0.0.1:80 ", "256.0.0.1:80", "::1:9466",
        "[::1]9466", "[::1", "[127.0.0.1]:80", "example.com:80", ":9466", "", "localhost:00009466",
    ])
    func badAddressesAreRefusedNamingFileLineKeyAndExpectation(text: String) {
        let source = "[log]\nlevel = \"info\"\n[metrics]\nlisten = \"\(text)\"\n"
        do {
            _ = try ConfigLoader.parse(source, file: "/etc/passtap/passtapd.toml")
            Issue.record("\"\(text)\" was accepted")
        } catch {
            #expect(error.file == "/etc/passtap/passtapd.toml")
            #expect(error.line == 4)
            #expect(error.keyPath == "metrics.listen")
            #expect(error.problem == "expected \(ListenAddress.expectation), found \"\(text)\"")
        }
    }

    @Test func aWrongTypeOrUnknownKeyIsRefused() {
        #expect(throws: ConfigurationError.self) { try ConfigLoader.parse("[metrics]\nlisten = 9466\n", file: "t.toml") }
        do {
            _ = try ConfigLoader.parse("[metrics]\nlisten = \"127.0.0.1:9466\"\npath = \"/metrics\"\n", file: "t.toml")
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.keyPath == "metrics.path")
            #expect(error.line == 3)
        }
    }
}

/// `[metrics] max_connections`: 8 by default, 1 to 1024, restart only.
@Suite(.timeLimit(.minutes(1))) struct MetricsConnectionCapConfigTests {
    @Test func theCapIsEightByDefaultAndReadFromTheFile() throws {
        #expect(try ConfigLoader.parse("", file: "t.toml").metrics.maxConnections == 8)
        let configuration = try ConfigLoader.parse("[metrics]\nlisten = \"127.0.0.1:9466\"\nmax_connections = 3\n", file: "t.toml")
        #expect(configuration.metrics.maxConnections == 3)
    }

    @Test(arguments: ["0", "1025", "\"8\""])
    func aCapOutOfRangeOrOfTheWrongTypeIsRefusedNamingTheKey(value: String) {
        do {
            _ = try ConfigLoader.parse("[metrics]\nmax_connections = \(value)\n", file: "/etc/passtap/passtapd.toml")
            Issue.record("max_connections = \(value) was accepted")
        } catch {
            #expect(error.keyPath == "metrics.max_connections")
            #expect(error.line == 2)
            #expect(error.problem.hasPrefix("expected an integer"), "\(error.problem)")
        }
    }

    @Test func aReloadKeepsTheRunningCap() throws {
        let old = try ConfigLoader.parse("[metrics]\nmax_connections = 4\n", file: "t.toml")
        let new = try ConfigLoader.parse("[metrics]\nmax_connections = 16\n", file: "t.toml")
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.restartRequired == ["metrics.max_connections"])
        #expect(plan.effective.metrics.maxConnections == 4)
    }
}
