import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// `[metrics] listen` and `status` health on the real stack: pcscd, vsmartcard-vpcd, the
    /// virtual iPhone and the built passtapd, scraped by Python's urllib over TCP.
    @Suite(.serialized) struct MetricsScenarioTests {
        /// A free TCP port on 127.0.0.1 (bound, read back and released).
        static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Rig.Failure(description: "socket: \(errno)") }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard bound else { throw Rig.Failure(description: "bind: \(errno)") }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        /// `GET /metrics`, by Python's urllib (an HTTP client that is not ours).
        static func scrape(_ port: Int) throws -> String {
            let script = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:' + sys.argv[1] + '/metrics', timeout=10).read().decode())"
            let finished = try Spawned.finish("/usr/bin/env", ["python3", "-c", script, String(port)], deadline: 30)
            guard finished.status == 0 else { throw Rig.Failure(description: "scrape failed: \(finished.output)") }
            return finished.output
        }

        /// The value of the sample `name` whose labels include `labels` (`nil` if there is none).
        static func value(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " ") else { continue }
                let series = line[..<space]
                let seriesName = series.split(separator: "{", maxSplits: 1).first.map(String.init) ?? ""
                guard seriesName == name, labels.allSatisfy({ series.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
                return Double(line[line.index(after: space)...])
            }
            return nil
        }

        /// `status` over the socket: its result object.
        static func status(_ rig: Rig) throws -> [String: Any] {
            let client = try LineClient(path: rig.socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":9,"method":"status"}"#)
            let answer = try client.readJSON(what: "the status answer") { $0["id"] as? Int == 9 }
            return try #require(answer["result"] as? [String: Any], "\(answer)")
        }

        static func passtapStatus(_ rig: Rig) throws -> (status: Int32, output: String) {
            let finished = try Spawned.finish(Rig.binaries.appendingPathComponent("passtap").path, ["status", "--socket", rig.socketPath])
            return (finished.status, finished.output)
        }

        static func event(_ client: LineClient, _ kind: String, timeout: Double = 15) throws -> [String: Any] {
            let message = try client.readJSON(timeout: timeout, what: kind) { ($0["params"] as? [String: Any])?["kind"] as? String == kind }
            return message["params"] as! [String: Any]
        }

        @Test func aTapShowsOnMetricsAndStatusAndTheReadersSeriesGoWithTheReader() throws {
            let port = try Self.freePort()
            let vas = try VASScenarioTests.rig(extra: "[metrics]\nlisten = \"127.0.0.1:\(port)\"")
            defer { vas.stop() }
            let reader = String(vas.rig.readerID)
            let (watcher, _) = try vas.rig.subscriber(kinds: ["reader.removed", "backend.down"])

            let before = try Self.scrape(port)
            #expect(Self.value(before, "passtap_taps_total", ["reader": reader]) == nil, "\(before)")
            #expect(Self.value(before, "passtap_backend_up", ["backend": "pcsc"]) == 1, "\(before)")
            #expect(Self.value(before, "passtap_reader_state", ["reader": reader, "state": "empty"]) == 1, "\(before)")
            #expect(Self.value(before, "passtap_build_info") == 1)
            let sessionsBefore = try #require(Self.value(before, "passtap_session_duration_seconds_count"))
            let roundTripsBefore = try #require(Self.value(before, "passtap_apdu_round_trip_seconds_count"))

            _ = try vas.tap()  // returns once the read.result and card.removed are out
            let after = try Self.scrape(port)
            #expect(Self.value(after, "passtap_taps_total", ["reader": reader, "outcome": "pass"]) == 1, "\(after)")
            #expect(Self.value(after, "passtap_vas_reads_total", ["merchant": VASScenarioTests.coffee, "status": "success"]) == 1, "\(after)")
            #expect(Self.value(after, "passtap_vas_reads_total", ["merchant": VASScenarioTests.loyalty, "status": "data_not_found"]) == 1)
            #expect(Self.value(after, "passtap_session_duration_seconds_count") == sessionsBefore + 1)
            // SELECT OSE.VAS.01, two GET VAS DATA and the SELECT of the payment AID, at least.
            #expect((Self.value(after, "passtap_apdu_round_trip_seconds_count") ?? 0) >= roundTripsBefore + 4, "\(after)")
            #expect((Self.value(after, "passtap_clients_connected") ?? 0) >= 2, "the VAS client and the watcher")
            // No card data in any label.
            #expect(!after.contains("member 0042") && !after.contains("04A1B2C3"))

            let status = try Self.status(vas.rig)
            let taps = try #require(status["last_taps"] as? [[String: Any]])
            #expect(taps.count == 1)
            #expect(taps.first?["reader"] as? String == reader && taps.first?["outcome"] as? String == "pass", "\(taps)")
            let backends = try #require(status["backends"] as? [[String: Any]])
            #expect(backends.first { $0["name"] as? String == "pcsc" }?["up"] as? Bool == true, "\(backends)")

            // The reader goes away (pcscd with it): its series go, the backend shows down, and the
            // daemon is down for a monitoring check.
            try vas.rig.killPcscd()
            // Both readers go, in either order.
            var removed = try Self.event(watcher, "reader.removed")
            if removed["reader"] as? String != reader { removed = try Self.event(watcher, "reader.removed") }
            #expect(removed["reader"] as? String == reader)
            _ = try Self.event(watcher, "backend.down")
            let gone = try Self.scrape(port)
            #expect(!gone.contains("reader=\"\(reader)\""), "\(gone)")
            #expect(Self.value(gone, "passtap_backend_up", ["backend": "pcsc"]) == 0, "\(gone)")
            #expect(Self.value(gone, "passtap_vas_reads_total", ["merchant": VASScenarioTests.coffee, "status": "success"]) == 1)
            let check = try Self.passtapStatus(vas.rig)
            #expect(check.status == 2, "\(check.output)")
            #expect(check.output.contains("health: down") && check.output.contains("no reader backend is up"), "\(check.output)")
        }

        @Test func aReaderHeldByAnotherProgramMakesTheDaemonDegradedUntilReleased() throws {
            let rig = try Rig(config: "[session]\naids = [\"A0000000041010\"]")
            defer { rig.stop() }
            rig.stopDaemon()
            try rig.cardCommand("tap")
            let holder = try rig.holdReader()
            defer {
                holder.signal(SIGTERM)
                holder.wait()
            }
            try rig.startDaemon(config: "[session]\naids = [\"A0000000041010\"]")
            let (client, _) = try rig.subscriber(since: 1, kinds: ["reader.changed", "read.result"])
            #expect(try Self.event(client, "reader.changed")["state"] as? String == "unavailable")

            let held = try Self.passtapStatus(rig)
            #expect(held.status == 1, "\(held.output)")
            #expect(held.output.contains("health: degraded"), "\(held.output)")
            #expect(held.output.contains("reader \(rig.readerID) is unavailable"), "\(held.output)")

            // Let go: the reader is usable again; what is left is the clock, as the kernel says.
            holder.signal(SIGTERM)
            #expect(try Self.event(client, "reader.changed")["state"] as? String == "empty")
            _ = try Self.event(client, "read.result")
            let synchronised = try Self.clockIsSynchronised()
            let released = try Self.passtapStatus(rig)
            #expect(released.status == (synchronised ? 0 : 1), "\(released.output)")
            #expect(!released.output.contains("is unavailable"), "\(released.output)")
            #expect(released.output.contains(synchronised ? "health: healthy" : "the system clock is not synchronised"), "\(released.output)")
            let health = try #require(try Self.status(rig)["health"] as? [String: Any])
            #expect(health["clock_synchronised"] as? Bool == synchronised)
            // The watchdog's health check ran at start and every 10 s since: a number, not null.
            #expect(health["last_check_ms"] is Int, "\(health)")
        }

        /// adjtimex(2) with modes 0 through Python's ctypes: TIME_ERROR (5) or STA_UNSYNC (0x40).
        static func clockIsSynchronised() throws -> Bool {
            let script = """
                import ctypes, struct
                buf = ctypes.create_string_buffer(512)
                state = ctypes.CDLL(None).adjtimex(buf)
                print("unsynchronised" if state == 5 or struct.unpack_from("i", buf.raw, 40)[0] & 0x40 else "synchronised")
                """
            let finished = try Spawned.finish("/usr/bin/env", ["python3", "-c", script])
            return finished.output.trimmingCharacters(in: .whitespacesAndNewlines) == "synchronised"
        }

        /// The daemon's open-file limit in this test: the usual soft limit, made hard, so that
        /// the machine's higher default (20 000 here) cannot hide a descriptor leak.
        static let floodLimit = 1024

        /// `nobody` holds 2 000 connections to the metrics port, opening a new one for each the
        /// daemon closes, while the daemon runs at 1024 open files: the daemon stays within its
        /// budget, a new Unix-socket client is served and a tap is read. (Before the cap, the daemon
        /// reached 1024 descriptors and `status` took seconds.)
        @Test(.enabled(if: getuid() == 0, "needs root to run the flood as another user"))
        func aFloodOfMetricsConnectionsFromAnotherUserLeavesTheDaemonItsDescriptors() throws {
            let port = try Self.freePort()
            let rig = try Rig(
                config: "[session]\naids = [\"A0000000041010\"]\n[metrics]\nlisten = \"127.0.0.1:\(port)\"", openFileLimit: (Self.floodLimit, Self.floodLimit))
            defer { rig.stop() }
            let pid = rig.daemonPID
            let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ") ?? []
            #expect(openFiles.count >= 5 && openFiles[3] == "\(Self.floodLimit)" && openFiles[4] == "\(Self.floodLimit)", "\(limits)")
            let budget = try #require(Self.budget(in: rig.daemonLog), "no fd.budget in the log: \(rig.daemonLog)")
            #expect(budget < Self.floodLimit)

            let watch = DescriptorWatch(pid: pid)
            defer { watch.stop() }
            let flood = try TCPFlood(port: port, connections: 2000, directory: rig.directory)
            defer { flood.stop() }
            func closed() -> Int { flood.closed }
            // The daemon has closed 2 000 of nobody's connections, each replaced at once.
            try rig.waitFor("the daemon to close 2000 of nobody's metrics connections", timeout: 120) { closed() >= 2000 || flood.hasExited() }
            #expect(closed() >= 2000, "the flood: \(flood.errors)")

            // Meanwhile a new client is served...
            let status = try Self.status(rig)
            #expect(status["protocol"] as? Int == 1, "\(status)")
            // ...and a tap is read, by a client that also connects during the flood.
            let (client, _) = try rig.subscriber(kinds: ["read.result"])
            try rig.cardCommand("tap-for 1200")
            let result = try Self.event(client, "read.result", timeout: 30)
            #expect(result["reader"] as? String == rig.readerID)
            #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(result)")
            let during = closed()

            #expect(!flood.hasExited(), "the flood stopped before the checks were over")
            flood.stop()
            let (most, samples) = watch.stop()
            #expect(most < Self.floodLimit, "passtapd held \(most) descriptors under a limit of \(Self.floodLimit)")
            #expect(most <= budget, "passtapd held \(most) descriptors, over its budget of \(budget)")
            #expect(samples > 0)
            // The listener serves scrapes again once the flood has let go of its slots.
            try rig.waitFor("a scrape to be served after the flood") { (try? Self.scrape(port)) != nil }
            #expect(Rig.isAlive(pid))
            print("metrics flood: passtapd held at most \(most) descriptors (budget \(budget), \(samples) samples); the flood had \(during) connections closed by then")
        }

        /// The `fd.budget=N = ...` the daemon logs at start.
        static func budget(in log: String) -> Int? {
            guard let range = log.range(of: "fd.budget=") else { return nil }
            return Int(log[range.upperBound...].prefix { $0.isNumber })
        }
    }
}
