import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Who may serve and use the socket (docs/socket-api.md, "Access"): `passtap` talks only to a
/// socket served by root, the `passtapd` user or the user it is told to trust, and checks that
/// before it sends a byte; `passtapd` creates its socket under a umask that keeps everyone else out
/// until its mode and group are set.
@Suite struct SocketTrustTests {
    /// `scripts/rig/socket_squatter.py`: a listener on a socket path of its own, as user `uid`.
    struct Squatter {
        let directory: String
        let socket: String
        let process: Spawned
        let pid: String

        init(uid: uid_t) throws {
            directory = NSTemporaryDirectory() + "passtap-squat-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
            // The squatter's own folder, as a user taking over a socket path would have one.
            guard chown(directory + "/run", uid, gid_t(uid)) == 0 else { throw Rig.Failure(description: "chown failed") }
            socket = directory + "/run/passtapd.sock"
            let ready = directory + "/ready"
            process = try Spawned.start(
                "/usr/bin/python3",
                [
                    Rig.repository.appendingPathComponent("scripts/rig/socket_squatter.py").path, socket, "--uid", String(uid),
                    "--ready", ready, "--report", directory + "/report.json",
                ], stdout: directory + "/squatter.log", stderr: directory + "/squatter.log")
            let deadline = Date().addingTimeInterval(10)
            var written = ""
            while written.isEmpty {
                guard Date() < deadline, !process.hasExited() else {
                    let log = (try? String(contentsOfFile: directory + "/squatter.log", encoding: .utf8)) ?? ""
                    throw Rig.Failure(description: "the squatter never listened: \(log)")
                }
                usleep(10_000)
                written = ((try? String(contentsOfFile: ready, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            }
            pid = written
        }

        var log: String { (try? String(contentsOfFile: directory + "/squatter.log", encoding: .utf8)) ?? "" }

        /// Waits for the squatter to finish with its one client and returns what it reported.
        func report() throws -> [String: Any] {
            let (_, inTime) = process.wait(seconds: 30)
            #expect(inTime, "the squatter did not finish: \(log)")
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/report.json"))
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }

        func remove() {
            if !process.hasExited() {
                process.signal(SIGTERM)
                process.wait(seconds: 5)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private func passtap(_ arguments: [String], environment: [String] = []) throws -> (status: Int32, output: String) {
        let binary = Rig.binaries.appendingPathComponent("passtap").path
        let finished = try Spawned.finish("/usr/bin/env", environment + [binary] + arguments, deadline: 30)
        return (finished.status, finished.output)
    }

    @Test func aSocketServedByAnotherUserIsRefusedBeforeAnythingIsSent() throws {
        let squatter = try Squatter(uid: 65534)
        defer { squatter.remove() }
        let (status, output) = try passtap(["status", "--socket", squatter.socket])
        #expect(status == 77, "\(output)")
        #expect(
            output.contains("refusing to talk to \(squatter.socket): it is served by uid 65534 (pid \(squatter.pid)), not by passtapd's user (expected uid 0 (root)"),
            "\(output)")
        #expect(output.contains("nothing was sent") && output.contains("--daemon-user 65534"), "\(output)")
        let report = try squatter.report()
        #expect(report["accepted"] as? Bool == true, "\(report) \(squatter.log)")
        #expect(report["received"] as? Int == 0, "the squatter was sent bytes: \(report)")
    }

    @Test func aUserNamedWithDaemonUserIsTrusted() throws {
        let squatter = try Squatter(uid: 65534)
        defer { squatter.remove() }
        // `readers`, not `status`: status reads a closed connection as "down" (exit 2).
        let (status, output) = try passtap(["readers", "--socket", squatter.socket, "--daemon-user", "65534"])
        // It sent its request; the stand-in closed without answering.
        #expect(status == 69 && output.contains("passtapd closed the connection"), "\(output)")
        let report = try squatter.report()
        #expect((report["received"] as? Int ?? 0) > 0, "\(report)")
    }

    @Test func theEnvironmentCanNameTheDaemonUserByName() throws {
        let squatter = try Squatter(uid: 65534)
        defer { squatter.remove() }
        let name = try #require(getpwuid(65534).map { String(cString: $0.pointee.pw_name) })
        let (status, output) = try passtap(["readers", "--socket", squatter.socket], environment: ["PASSTAP_DAEMON_USER=\(name)"])
        #expect(status == 69, "\(output)")
        let report = try squatter.report()
        #expect((report["received"] as? Int ?? 0) > 0, "\(report)")
    }

    @Test func aDaemonUserThatDoesNotExistIsAUsageError() throws {
        let (status, output) = try passtap(["status", "--socket", "/nonexistent/passtapd.sock", "--daemon-user", "passtap-no-such-user"])
        #expect(status == 64, "\(output)")
        #expect(output.contains("'passtap-no-such-user' is neither a user of this system nor a uid"), "\(output)")
    }

    @Test func passtapdCreatesItsSocketUnderAMaskThatKeepsOthersOutUntilItsModeIsSet() throws {
        let directory = NSTemporaryDirectory() + "passtap-umask-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = directory + "/run/passtapd.sock"
        let config = directory + "/passtapd.toml"
        try "[socket]\npath = \"\(socket)\"\nmode = \"0640\"\n[pcsc]\nenabled = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        let log = directory + "/passtapd.log"
        let daemon = try Spawned.start(Rig.binaries.appendingPathComponent("passtapd").path, ["--config", config], stdout: log, stderr: log)
        defer {
            daemon.signal(SIGTERM)
            daemon.wait(seconds: 10)
        }
        let deadline = Date().addingTimeInterval(15)
        while (try? LineClient(path: socket)) == nil {
            guard Date() < deadline, !daemon.hasExited() else {
                Issue.record("passtapd never listened: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
                return
            }
            usleep(20_000)
        }
        let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)
        // bind() made the file 0777 & ~0177 = 0600, 0640's owner bits only: nobody else could
        // connect before the group and mode were set.
        #expect(status.split(separator: "\n").contains("Umask:\t0177"), "\(status)")
        var info = stat()
        #expect(lstat(socket, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
        // The directory it made is 0755 despite the umask, so clients can reach the socket.
        #expect(stat(directory + "/run", &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o755)
    }
}
