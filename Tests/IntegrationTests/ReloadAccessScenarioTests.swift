import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// `[access]` changed by a reload, through the real stack: a watcher run as `nobody` gains,
    /// then loses, the `read` role. Its connection is closed when its roles change, and the next
    /// one gets the new roles.
    @Suite(.serialized, .enabled(if: getuid() == 0, "needs root to run a client as another user"))
    struct ReloadAccessScenarioTests {
        static func config(readers: String) -> String {
            "group = \"nogroup\"\n" + ReloadScenarioTests.vas([ReloadScenarioTests.coffee]) + "[access]\nread = [\(readers)]\n"
        }

        /// Subscribes as nobody to `read.result`; returns once subscribed.
        static func watcher(_ rig: Rig, name: String) throws -> (Spawned, URL) {
            let line = #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#
            let output = rig.directory.appendingPathComponent("\(name).out")
            let script = """
                import json, socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(30)
                s.connect(sys.argv[1])
                s.sendall((sys.argv[2] + "\\n").encode())
                for line in s.makefile("r"):
                    sys.stdout.write(line)
                    sys.stdout.flush()
                    if json.loads(line).get("params", {}).get("kind") == "read.result":
                        break
                print("closed")
                """
            let process = try Spawned.start(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, rig.socketPath, line],
                stdout: output.path, stderr: output.path + ".err")
            try rig.waitFor("\(name)'s subscription") { AccessScenarioTests.text(output).contains(#""next_seq""#) }
            return (process, output)
        }

        /// The coffee entry of the `read.result` a watcher printed.
        static func coffee(_ output: URL) throws -> [String: Any] {
            let messages = try AccessScenarioTests.messages(URL(fileURLWithPath: output.path + ".json"))
            let event = try #require(messages.last?["params"] as? [String: Any], "\(messages)")
            return try #require(try PhoneRig.entries(event).first { $0["pass_type_id"] as? String == ReloadScenarioTests.coffee })
        }

        /// The watcher's JSON lines (without its final `closed`), written beside its output.
        static func json(_ output: URL) throws -> URL {
            let lines = AccessScenarioTests.text(output).split(separator: "\n").filter { $0 != "closed" }
            let file = URL(fileURLWithPath: output.path + ".json")
            try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            return file
        }

        @Test func aPeerThatGainsThenLosesReadIsReconnectedWithItsNewRoles() throws {
            let phone = try ReloadScenarioTests.rig(config: Self.config(readers: "\"uid:0\"")), rig = phone.rig, ledger = phone.ledger
            defer { phone.stop() }
            chmod(rig.directory.path, 0o755)

            // nobody observes; the reload gives it read: its connection (observe only) is closed.
            let (first, firstOutput) = try Self.watcher(rig, name: "first")
            try rig.reload(config: Self.config(readers: "\"uid:0\", \"uid:65534\""))
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["access"])
            #expect(first.wait(seconds: 20).inTime)
            #expect(!AccessScenarioTests.text(firstOutput).contains("read.result"))
            #expect(rig.daemonLog.contains("peer.new_roles=observe,read"))

            // Its new connection reads the pass.
            let (second, secondOutput) = try Self.watcher(rig, name: "second")
            _ = try phone.tap()
            #expect(second.wait(seconds: 20).inTime)
            _ = try Self.json(secondOutput)
            let granted = try Self.coffee(secondOutput)
            #expect(granted["message"] as? String == "member 0042", "\(granted)")

            // Taken back: the next connection sees the tap with the message withheld.
            try rig.reload(config: Self.config(readers: "\"uid:0\""))
            #expect(try ledger.next("config.reloaded")["changed"] as? [String] == ["access"])
            let (third, thirdOutput) = try Self.watcher(rig, name: "third")
            _ = try phone.tap()
            #expect(third.wait(seconds: 20).inTime)
            _ = try Self.json(thirdOutput)
            let withheld = try Self.coffee(thirdOutput)
            #expect(withheld["message"] is NSNull && withheld["withheld"] as? String == "access", "\(withheld)")
            #expect(!AccessScenarioTests.text(thirdOutput).contains("member 0042"))
            #expect(ledger.problems.isEmpty, "\(ledger.problems)")
        }
    }
}
