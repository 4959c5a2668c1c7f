import Foundation
import Testing

/// `passtap status`'s exit code follows the `health.state` a daemon reports, whatever it is: 0
/// healthy, 1 degraded, 2 down. A stand-in daemon (`socat` with a canned answer) gives each state
/// on demand, a healthy one included, which the real daemon on an unsynchronised machine cannot.
/// The real daemon's states are in `MetricsScenarioTests`.
@Suite struct StatusExitCodeTests {
    static func answer(_ state: String, problems: [String]) -> [String: Any] {
        HostileTextTests.response(
            1,
            [
                "version": "0.1.0", "protocol": 1, "instance": "i-1", "uptime_s": 3.5,
                "readers": [["id": "pcsc:R 00 00", "name": "R 00 00", "backend": "pcsc", "state": "empty", "reason": NSNull()]],
                "backends": [["name": "pcsc", "up": state != "down", "reason": NSNull()]],
                "last_taps": [["reader": "pcsc:R 00 00", "time": "2026-11-24T01:50:00.123Z", "outcome": "pass"]],
                "health": ["state": state, "problems": problems, "last_check_ms": 1500, "clock_synchronised": state == "healthy"],
            ])
    }

    @Test(arguments: [("healthy", Int32(0)), ("degraded", 1), ("down", 2)])
    func theExitCodeFollowsTheReportedHealth(state: String, code: Int32) throws {
        let problems = state == "healthy" ? [] : ["the system clock is not synchronised (VAS freshness depends on it)"]
        let daemon = try HostileTextTests.StandInDaemon([Self.answer(state, problems: problems)])
        defer { daemon.stop() }
        let (status, output) = try HostileTextTests.passtap(["status"], against: daemon)
        #expect(status == code, "\(output)")
        #expect(output.contains("health: \(state)"), "\(output)")
        #expect(output.contains("last healthy check: 1.5s ago"), "\(output)")
        #expect(output.contains("last tap on pcsc:R 00 00: 2026-11-24T01:50:00.123Z pass"), "\(output)")
        if let problem = problems.first { #expect(output.contains("  \(problem)"), "\(output)") }
    }

    @Test func jsonOutputKeepsTheExitCode() throws {
        let daemon = try HostileTextTests.StandInDaemon([Self.answer("degraded", problems: ["reader pcsc:R 00 00 is unavailable"])])
        defer { daemon.stop() }
        let (status, output) = try HostileTextTests.passtap(["status", "--json"], against: daemon)
        #expect(status == 1, "\(output)")
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        #expect((object?["health"] as? [String: Any])?["state"] as? String == "degraded", "\(output)")
    }
}
