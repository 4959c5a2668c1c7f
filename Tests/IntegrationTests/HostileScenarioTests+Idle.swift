import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension PCSCScenarioTests.HostileScenarioTests {
    /// Opens one connection more than the limit as nobody:nogroup, keeps them idle, and prints
    /// one line for the refusal (`refused` + the daemon's line) and one per idle connection once
    /// the daemon closes it (`closed` + its line + `eof` when the close followed).
    ///
    /// The daemon admits connections on more than one event loop, so the one refused is not
    /// always the last connected (seen once in 2 runs): it is the one answered first, long before
    /// the idle timeout.
    static let idlePeer = """
        import select, socket, sys
        path, limit = sys.argv[1], int(sys.argv[2])
        held = []
        for _ in range(limit + 1):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(60)
            s.connect(path)
            held.append(s)
        answered, _, _ = select.select(held, [], [], 60)
        refused = answered[0]
        print("refused " + refused.makefile("r").readline().strip(), flush=True)
        for s in held:
            if s is refused:
                continue
            reader = s.makefile("rb")
            line = reader.readline().decode().strip()
            print("closed " + line + (" eof" if reader.read() == b"" else " more"), flush=True)
        """

    @Test(.enabled(if: getuid() == 0, "needs root to run a peer as another user"))
    func idleConnectionsUpToAUsersLimitLeaveTheTillServed() throws {
        let limit = 32
        let hostile = try Self.rig(socket: "group = \"nogroup\"\nidle_timeout_ms = 15000\nmax_clients_per_uid = \(limit)")
        defer { hostile.stop() }
        chmod(hostile.rig.directory.path, 0o755)
        try hostile.report.begin()
        let output = hostile.rig.directory.appendingPathComponent("idle.out")
        let peer = try Spawned.start(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", Self.idlePeer,
                hostile.rig.socketPath, String(limit),
            ],
            stdout: output.path, stderr: output.path + ".err")
        func lines() -> [String] {
            ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        try hostile.rig.waitFor("nobody's connection over the limit to be refused") { lines().contains { $0.hasPrefix("refused ") } }
        let refusal = lines().first { $0.hasPrefix("refused ") } ?? ""
        #expect(refusal.contains("-32006") && refusal.contains("max_clients_per_uid"), "\(refusal)")
        // While nobody holds all its connections, the till (another user) connects anew and is served.
        let served = try hostile.tillIsServed(after: "\(limit) idle connections")
        let stillHeld = lines().filter { $0.hasPrefix("closed ") }.isEmpty
        #expect(stillHeld, "the idle connections were closed before the till was served: the till was not tested against them")
        // The idle ones are then closed by the daemon, each told why.
        #expect(peer.wait(seconds: 60).inTime, "the idle peer was not let go: \(lines())")
        let closed = lines().filter { $0.hasPrefix("closed ") }
        #expect(closed.count == limit, "\(lines())")
        #expect(closed.allSatisfy { $0.contains("-32015") && $0.hasSuffix(" eof") }, "\(closed)")
        let servedAgain = try hostile.tillIsServed(after: "the idle connections were closed")
        hostile.checkSubscriber(after: "\(limit) idle connections")
        try hostile.report.end(
            "a peer (another user) opens connections until refused, then keeps them idle; the till connects anew",
            daemon: "\(limit) accepted ([socket] max_clients_per_uid), the next -32006 `too_many_clients` naming the setting; after idle_timeout_ms (15000) each idle one got -32015 `idle_timeout` and was closed",
            subscriber: "nothing (no event); not closed (subscribed); none lost; \(served)\(stillHeld ? " while all were held" : ""); again after they were closed: \(servedAgain.replacingOccurrences(of: "till: ", with: ""))")
    }
}
