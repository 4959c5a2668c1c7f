import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A reload that takes `read` away while the peer keeps connecting (docs/operations.md,
/// "Start, reload, stop"): no connection
/// admitted around the reload may keep the role. The real passtapd, its real socket, and a peer
/// run as `nobody` that opens connections as fast as the daemon takes them.
///
/// The race is narrow: before the fix, one connection kept `read` in 1 of 250 revoking reloads
/// here (about 1 200 connections probed per reload). `AdmissionReloadTests` forces the order.
@Suite(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
struct ReloadRevokeScenarioTests {
    /// How many reloads take `read` away (as many more give it back).
    static let revokingReloads = 50

    /// `[access]` giving `read` to root, and to nobody when `nobody` is true. Limits high enough
    /// that every connection of a round is admitted, none refused.
    static func config(nobody: Bool) -> String {
        let read = nobody ? #""uid:0", "uid:65534""# : #""uid:0""#
        return "group = \"nogroup\"\nmax_clients = 4096\nmax_clients_per_uid = 4096\n[pcsc]\nenabled = false\n[access]\nread = [\(read)]\n"
    }

    /// The peer, run as nobody. Commands come one a line on the FIFO `argv[2]`. `go` starts
    /// connecting to the socket `argv[1]` in a loop, for good, so that some connection is always
    /// being admitted when a reload comes. The peer never closes a connection the daemon keeps:
    /// one admitted late, at a reload, stays open as long as the daemon lets it. `check N` sends
    /// every connection still open a `vas.read` (which needs `read`), prints what they answered,
    /// and forgets those the daemon had closed.
    static let peer = """
        import json, os, socket, sys, threading
        path, fifo = sys.argv[1], sys.argv[2]
        probe = (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "vas.read",
                             "params": {"reader": "pcsc:none", "timeout_ms": 0}}) + "\\n").encode()
        lock = threading.Lock()
        connecting = threading.Event()
        held = []
        failed = []

        def connect_loop():
            while True:
                connecting.wait()
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(path)
                except OSError as error:
                    s.close()
                    failed.append(error.errno)
                    continue
                with lock:
                    held.append(s)

        def answer(s):
            # forbidden: refused for want of read; closed: the daemon closed it first (its roles
            # changed, or it was refused); read: served past the role check; silent: no answer.
            s.settimeout(20)
            buffer = b""
            try:
                s.sendall(probe)
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        return "closed"
                    buffer += chunk
                    while b"\\n" in buffer:
                        line, buffer = buffer.split(b"\\n", 1)
                        message = json.loads(line)
                        if message.get("id") is None:
                            return "closed"  # a refusal, then the daemon closes
                        code = (message.get("error") or {}).get("code")
                        return "forbidden" if code == -32014 else "read"
            except socket.timeout:
                return "silent"
            except OSError:
                return "closed"

        threading.Thread(target=connect_loop, daemon=True).start()
        commands = os.fdopen(os.open(fifo, os.O_RDONLY), "r", buffering=1)
        print("ready", flush=True)
        for command in commands:
            words = command.split()
            if words[0] == "go":
                connecting.set()
                continue
            with lock:
                probed = held[:]
            counts = {"forbidden": 0, "closed": 0, "read": 0, "silent": 0}
            closed = set()
            for s in probed:
                outcome = answer(s)
                counts[outcome] += 1
                if outcome == "closed":
                    closed.add(s)
                    s.close()
            with lock:
                held[:] = [s for s in held if s not in closed]
            counts["failed"] = len(failed)
            failed.clear()
            print("round", words[1], " ".join(f"{k}={v}" for k, v in counts.items()), f"open={len(probed)}", flush=True)
        """

    /// Starts the peer as nobody; returns it, its output file and the FIFO's write end.
    static func startPeer(_ rig: Rig) throws -> (Spawned, URL, Int32) {
        let fifo = rig.directory.appendingPathComponent("peer.fifo").path
        guard mkfifo(fifo, 0o644) == 0 else { throw Rig.Failure(description: "mkfifo \(fifo): \(String(cString: strerror(errno)))") }
        let output = rig.directory.appendingPathComponent("peer.out")
        let peer = try Spawned.start(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", Self.peer, rig.socketPath, fifo],
            stdout: output.path, stderr: output.path + ".err")
        // O_NONBLOCK: the open fails (ENXIO) until the peer has opened its end, instead of blocking.
        var commands: Int32 = -1
        try rig.waitFor("the peer's command FIFO") {
            commands = open(fifo, O_WRONLY | O_NONBLOCK)
            return commands >= 0 || peer.hasExited()
        }
        guard commands >= 0 else { throw Rig.Failure(description: "the peer exited: \(PCSCScenarioTests.AccessScenarioTests.text(output)) \(PCSCScenarioTests.AccessScenarioTests.text(URL(fileURLWithPath: output.path + ".err")))") }
        return (peer, output, commands)
    }

    @Test func noConnectionKeepsReadPastAReloadThatRevokesIt() throws {
        let rig = try Rig(config: Self.config(nobody: false), pcscd: false)
        defer { rig.stop() }
        chmod(rig.directory.path, 0o755)
        let ledger = try EventLedger(rig: rig)
        let (peer, output, commands) = try Self.startPeer(rig)
        defer {
            close(commands)
            peer.wait(seconds: 10)
        }
        func send(_ command: String) {
            _ = (command + "\n").withCString { write(commands, $0, strlen($0)) }
        }
        var leaks: [String] = []
        var probed = 0
        send("go")
        for round in 1...(2 * Self.revokingReloads) {
            let revoked = round % 2 == 0
            try rig.reload(config: Self.config(nobody: !revoked))
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["access"])
            guard revoked else { continue }
            send("check \(round)")
            var line = ""
            try rig.waitFor("the peer's round \(round)", timeout: 60) {
                // Whole lines only: the peer may be writing the last one.
                let text = PCSCScenarioTests.AccessScenarioTests.text(output)
                let lines = text.split(separator: "\n").dropLast(text.hasSuffix("\n") ? 0 : 1)
                line = lines.first { $0.hasPrefix("round \(round) ") }.map(String.init) ?? ""
                return !line.isEmpty || peer.hasExited()
            }
            guard !line.isEmpty else { throw Rig.Failure(description: "the peer exited: \(PCSCScenarioTests.AccessScenarioTests.text(URL(fileURLWithPath: output.path + ".err")))") }
            probed += Int(line.split(separator: " ").first { $0.hasPrefix("open=") }?.dropFirst(5) ?? "") ?? 0
            if !line.contains(" read=0 ") || !line.contains(" silent=0 ") { leaks.append(line) }
        }
        print("ReloadRevokeScenarioTests: \(Self.revokingReloads) revoking reloads, \(probed) connections probed after them; leaks: \(leaks)")
        #expect(probed > 0, "the peer connected during no reload")
        #expect(leaks.isEmpty, "connections kept read past a revoking reload: \(leaks)")
        #expect(ledger.problems.isEmpty, "\(ledger.problems)")
    }
}
