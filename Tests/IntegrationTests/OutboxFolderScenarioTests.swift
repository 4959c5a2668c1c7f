import WebSettings
import ForwardSettings
import Foundation
import PassTapTestNetwork
import PassTapTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Forwarding that cannot work is never silent (docs/operations.md, "Forwarding that cannot
/// work"), through the built passtapd and
/// passtap, without pcscd: start and `--check-config` refuse sinks whose outbox folder is
/// missing or not writable (file, line, key), `--check-config` accepts the unit's state folder
/// before its first start, and an outbox that fails at run time degrades `status.health` and
/// systemd's `STATUS=`, while `passtap forward status` says why (`manage`) or the class.
@Suite struct OutboxFolderScenarioTests {
    /// A folder of the test's own, reachable by `nobody` (the checks as another user).
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "passtap-outbox-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
    }

    /// A webhook secret file (0600) in the folder; returns its path.
    func secretFile() throws -> String {
        let path = folder + "/loyalty.secret"
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        try "whsec_\(Data(bytes).base64EncodedString())\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// `[forward]` (with `outbox` when given) and one webhook to a port where nothing listens.
    func forward(outbox: String?) throws -> String {
        """
        [forward]
        \(outbox.map { "outbox = \"\($0)\"" } ?? "# outbox: the default")
        [[forward.webhooks]]
        name = "loyalty"
        url = "http://127.0.0.1:9/hook"
        secret_file = "\(try secretFile())"

        """
    }

    /// Writes a config whose lines 1 to 4 are `[socket]` and `[pcsc]`, then `forward`.
    func config(_ forward: String) throws -> String {
        let path = folder + "/passtapd.toml"
        try "[socket]\npath = \"\(folder)/passtapd.sock\"\n[pcsc]\nenabled = false\n\(forward)".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        return path
    }

    static let passtapd = Rig.binaries.appendingPathComponent("passtapd").path

    @Test func startAndCheckConfigRefuseAMissingOutboxFolderWithFileLineAndKey() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = try config(try forward(outbox: "missing/outbox.sqlite"))
        let refusal =
            "\(config):6: forward.outbox: the sinks need the outbox \(folder)/missing/outbox.sqlite: the outbox's folder \(folder)/missing does not exist: create it"
        let check = try Spawned.finish(Self.passtapd, ["--check-config", config], deadline: 30)
        #expect(check.status == 78 && check.output.contains(refusal), "\(check.output)")
        let start = try Spawned.finish(Self.passtapd, ["--config", config], deadline: 30)
        #expect(start.status == 78 && start.output.contains("passtapd: refusing to start: \(refusal)"), "\(start.output)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/passtapd.sock"))
    }

    /// `StateDirectory=` makes /var/lib/passtap only when the unit starts: `--check-config`
    /// accepts it missing, and says so; passtapd itself, started without the unit, refuses.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/var/lib/passtap"), "needs /var/lib/passtap not to exist"))
    func checkConfigAcceptsTheUnitsMissingStateFolderAtTheDefaultPathAndSaysSo() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = try config(try forward(outbox: nil))
        let check = try Spawned.finish(Self.passtapd, ["--check-config", config], deadline: 30)
        #expect(check.status == 0, "\(check.output)")
        #expect(
            check.output.contains("\(config): the outbox's folder /var/lib/passtap does not exist yet: the unit's StateDirectory= creates it when passtapd starts"),
            "\(check.output)")
        let start = try Spawned.finish(Self.passtapd, ["--config", config], deadline: 30)
        // No `outbox` key: the line of the sink that needs it.
        #expect(start.status == 78, "\(start.output)")
        #expect(
            start.output.contains(
                "\(config):7: forward.outbox: the sinks need the outbox /var/lib/passtap/outbox.sqlite (the default, as [forward] outbox is not set): the outbox's folder /var/lib/passtap does not exist"),
            "\(start.output)")
    }

    /// The folder is judged for the user `--check-config` runs as: root may write it, nobody
    /// may not.
    @Test(.enabled(if: getuid() == 0, "needs root to run passtapd as another user"))
    func checkConfigJudgesTheFolderForTheUserItRunsAs() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/root-only", withIntermediateDirectories: false)
        chmod(folder + "/root-only", 0o755)
        let config = try config(try forward(outbox: "root-only/outbox.sqlite"))
        let asRoot = try Spawned.finish(Self.passtapd, ["--check-config", config], deadline: 30)
        #expect(asRoot.status == 0, "\(asRoot.output)")
        // The secret file nobody may read (its owner's), so that only the outbox is refused.
        chown(folder + "/loyalty.secret", 65534, 0)
        let asNobody = try Spawned.finish(
            "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", Self.passtapd, "--check-config", config], deadline: 30)
        #expect(asNobody.status == 78, "\(asNobody.output)")
        #expect(
            asNobody.output.contains("\(config):6: forward.outbox: the sinks need the outbox \(folder)/root-only/outbox.sqlite: nobody (uid 65534) cannot create files in the outbox's folder \(folder)/root-only (Permission denied)"),
            "\(asNobody.output)")
    }

    /// An outbox that is not a database passes the folder check and fails when opened: the
    /// daemon runs, `status.health` is degraded naming the sink and the class (no path), the
    /// `STATUS=` line says the same, and `passtap forward status` says forwarding is stopped,
    /// with the outbox's error for root (`manage`) and the class alone for nobody.
    @Test(.enabled(if: getuid() == 0, "needs root to run passtap as another user"))
    func anOutboxThatFailsAtRunTimeDegradesHealthAndSTATUSAndForwardStatusSaysWhy() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outbox = folder + "/outbox.sqlite"
        try String(repeating: "not a database\n", count: 300).write(toFile: outbox, atomically: true, encoding: .utf8)
        let systemd = try NotifySocketListener()
        let rig = try Rig(
            config: "group = \"nogroup\"\n[pcsc]\nenabled = false\n" + (try forward(outbox: outbox)), pcscd: false,
            daemonEnvironment: ["NOTIFY_SOCKET": systemd.path, "WATCHDOG_USEC": "1000000"])
        defer { rig.stop() }
        chmod(rig.directory.path, 0o755)
        let problem = "forwarding to sink loyalty fails: outbox_unavailable (passtap forward status tells more)"

        var statusLine: String?
        let deadline = Date().addingTimeInterval(10)
        while statusLine == nil, Date() < deadline, let datagram = systemd.receive(seconds: 10) {
            if datagram.hasPrefix("STATUS="), datagram.contains("DEGRADED") { statusLine = datagram }
        }
        #expect(statusLine?.hasSuffix("; DEGRADED: \(problem)") == true, "\(statusLine ?? "no degraded STATUS= line")")

        let health = try #require(try rig.call("status")["health"] as? [String: Any])
        // Degraded at least (no reader backend makes this daemon down besides).
        #expect(health["state"] as? String != "healthy", "\(health)")
        #expect((health["problems"] as? [String])?.contains(problem) == true, "\(health)")
        #expect(!"\(health)".contains(outbox), "health names no path: \(health)")

        let passtap = Rig.binaries.appendingPathComponent("passtap").path
        let manage = try Spawned.finish(passtap, ["forward", "status", "--socket", rig.socketPath], deadline: 20)
        let lines = manage.output.split(separator: "\n").map(String.init)
        #expect(manage.status == 0, "\(manage.output)")
        #expect(lines.first == "forwarding is stopped: 1 sink configured, but the outbox cannot be opened, so no event is kept or sent", "\(manage.output)")
        #expect(lines.dropFirst().first?.hasPrefix("the outbox: the outbox \(outbox) is not an SQLite database") == true, "\(manage.output)")
        let observe = try Spawned.finish(
            "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", passtap, "forward", "status", "--socket", rig.socketPath],
            deadline: 20)
        #expect(observe.status == 0 && observe.output.hasPrefix("forwarding is stopped"), "\(observe.output)")
        #expect(observe.output.contains("the outbox: outbox_unavailable (why, and what to do, needs the manage role"), "\(observe.output)")
        #expect(!observe.output.contains(outbox), "observe gets no path: \(observe.output)")
    }
}
