import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// An optional listener against a process on the till that took its port while passtapd was
    /// down (a boot, an upgrade's restart, `RestartSec=`): the readers and the socket go on, the
    /// daemon says which listener is down and why, and the listener comes up once the port is free.
    @Suite(.serialized) struct ListenerScenarioTests {
        /// A listening TCP socket on 127.0.0.1:`port`, as any local user can make one.
        final class Squatter {
            let fd: Int32

            init(port: Int) throws {
                fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                let bound = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
                }
                guard fd >= 0, bound, listen(fd, 8) == 0 else { throw Rig.Failure(description: "the squatter cannot take port \(port): errno \(errno)") }
            }

            func leave() { close(fd) }
        }

        static func problems(_ status: [String: Any]) -> [String] {
            ((status["health"] as? [String: Any])?["problems"] as? [String]) ?? []
        }

        @Test func aSquattedWebPortLeavesTheReadsAndTheSocketServingAndComesBackWithoutARestart() throws {
            let port = try MetricsScenarioTests.freePort()
            let squatter = try Squatter(port: port)
            let vas = try WebScenarioTests.rig(port: port)
            defer {
                squatter.leave()
                vas.stop()
            }
            // The daemon is up and reads taps on the Unix socket.
            let result = try vas.tap()
            #expect(PhoneRig.entry(in: result)?["status"] as? String == "success", "\(result)")
            // status names the listener and why; the watchdog's own check is healthy and fresh.
            let status = try MetricsScenarioTests.status(vas.rig)
            let health = try #require(status["health"] as? [String: Any])
            #expect(health["state"] as? String == "degraded", "\(health)")
            let problem = try #require(Self.problems(status).first { $0.hasPrefix("web listener is down") }, "\(health)")
            #expect(problem.contains("127.0.0.1:\(port)") && problem.contains("[web] listen") && problem.contains("retrying"), "\(problem)")
            #expect(!Self.problems(status).contains { $0.contains("healthy check") }, "\(health)")
            #expect(health["last_check_ms"] is Int, "the health check ran: \(health)")
            #expect(vas.rig.daemonLog.contains("web listener is down"))
            // The squatter leaves: passtapd takes the port back on its own, and /rpc serves.
            squatter.leave()
            try vas.rig.waitFor("the web listener to come up") { vas.rig.daemonLog.contains("web listening") }
            let client = try WebScenarioTests.authenticated(port: port, secret: WebScenarioTests.tillSecret, origin: WebScenarioTests.pos)
            let after = try client.call(#"{"jsonrpc":"2.0","id":7,"method":"status"}"#, id: 7, what: "status over /rpc")
            let afterHealth = try #require((after["result"] as? [String: Any])?["health"] as? [String: Any], "\(after)")
            #expect(!((afterHealth["problems"] as? [String]) ?? []).contains { $0.contains("listener") }, "\(afterHealth)")
        }
    }
}
