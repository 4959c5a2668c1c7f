import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// `[access]` through the real stack: a watcher run as `nobody` (through `setpriv`) next to the
    /// rig's root client, on the built passtapd with the virtual iPhone.
    @Suite(.serialized, .enabled(if: getuid() == 0, "needs root to run a client as another user"))
    struct AccessScenarioTests {
        /// A socket `nobody` reaches through its group; `read` only for root.
        static func rig() throws -> PhoneRig {
            let vas = try VASScenarioTests.rig(socket: #"group = "nogroup""#, extra: "[access]\nread = [\"uid:0\"]")
            chmod(vas.rig.directory.path, 0o755)
            return vas
        }

        /// Runs a Python client as nobody:nogroup (which cannot write in the rig's folder, so it
        /// prints): it sends `lines`, ends its input, and prints every line it gets up to the first `read.result` or
        /// the daemon's close. Returns the process and the file its output goes to.
        static func nobody(_ vas: PhoneRig, lines: [String], name: String) throws -> (Spawned, URL) {
            try nobody(vas.rig, lines: lines, name: name)
        }

        /// ``nobody(_:lines:name:)`` on any rig whose socket and folder `nobody` reaches.
        static func nobody(_ rig: Rig, lines: [String], name: String) throws -> (Spawned, URL) {
            let output = rig.directory.appendingPathComponent("\(name).out")
            let script = """
                import json, socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(30)
                s.connect(sys.argv[1])
                s.sendall("".join(l + "\\n" for l in sys.argv[2:]).encode())
                s.shutdown(socket.SHUT_WR)  # a subscription streams on after the end of input
                for line in s.makefile("r"):
                    sys.stdout.write(line)
                    sys.stdout.flush()
                    if json.loads(line).get("params", {}).get("kind") == "read.result":
                        break
                """
            let process = try Spawned.start(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, rig.socketPath] + lines,
                stdout: output.path, stderr: output.path + ".err")
            return (process, output)
        }

        static func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

        static func messages(_ file: URL) throws -> [[String: Any]] {
            try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        }

        @Test func aWatcherWithoutReadSeesTheTapWithThePassMessageWithheld() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            let (watcher, output) = try Self.nobody(
                vas, lines: [#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#], name: "watcher")
            try vas.rig.waitFor("nobody's subscription") { Self.text(output).contains(#""next_seq""#) }

            // Root (read) gets the message.
            let full = try PhoneRig.entries(try vas.tap())
            let coffee = try #require(full.first { $0["pass_type_id"] as? String == VASScenarioTests.coffee })
            #expect(coffee["status"] as? String == "success")
            #expect(coffee["message"] as? String == "member 0042")
            #expect(coffee["withheld"] is NSNull || coffee["withheld"] == nil)

            // nobody (observe only) gets the same tap, without it.
            #expect(watcher.wait(seconds: 20).inTime)
            let seen = try Self.messages(output)
            let event = try #require(seen.last?["params"] as? [String: Any], "\(seen)")
            let withheld = try PhoneRig.entries(event)
            let entry = try #require(withheld.first { $0["pass_type_id"] as? String == VASScenarioTests.coffee })
            #expect(entry["status"] as? String == "success")
            #expect(entry["message"] is NSNull)
            #expect(entry["message_hex"] is NSNull)
            #expect(entry["withheld"] as? String == "access")
            #expect(!String(decoding: try Data(contentsOf: output), as: UTF8.self).contains("member 0042"))
        }

        @Test func vasReadNeedsTheReadRoleAndEveryCallIsAudited() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            let read = #"{"jsonrpc":"2.0","id":7,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":200}}"#
            let (caller, output) = try Self.nobody(vas, lines: [read], name: "caller")
            #expect(caller.wait(seconds: 20).inTime)
            let answer = try #require(try Self.messages(output).first)
            let error = try #require(answer["error"] as? [String: Any], "\(answer)")
            #expect(error["code"] as? Int == -32014)
            #expect((error["data"] as? [String: Any])?["reason"] as? String == "forbidden")

            // Root may: its call times out (no tap) and leaves one audit line.
            let root = try LineClient(path: vas.rig.socketPath)
            try root.sendLine(read)
            let timedOut = try root.readJSON(what: "root's vas.read") { $0["id"] as? Int == 7 }
            #expect((timedOut["error"] as? [String: Any])?["code"] as? Int == -32010)
            // Both calls are audited: nobody's refusal and root's timeout.
            let audits = vas.rig.daemonLog.split(separator: "\n").filter { $0.contains("audit.method=vas.read") }
            #expect(audits.count == 2, "\(vas.rig.daemonLog)")
            #expect(audits.first?.contains("peer.uid=65534") == true && audits.first?.contains("audit.outcome=forbidden") == true)
            #expect(audits.last?.contains("peer.uid=0") == true && audits.last?.contains("audit.outcome=timeout") == true)
            #expect(audits.allSatisfy { $0.contains("audit.reader=pcsc:Virtual PCD 00 00") })
        }

        /// Peer B (`nobody`, with `read`) keeps a `vas.read` waiting for the loyalty pass before the
        /// till asks with no filter; one tap of a phone holding only the coffee pass answers both:
        /// the till gets the coffee pass, B only what it asked for.
        @Test func anotherReadHoldersWaitingReadDoesNotTakeTheTillsTap() throws {
            let vas = try VASScenarioTests.rig(socket: #"group = "nogroup""#, extra: "[access]\nread = [\"uid:0\", \"uid:65534\"]")
            chmod(vas.rig.directory.path, 0o755)
            defer { vas.stop() }
            let reader = "pcsc:Virtual PCD 00 00"
            // [socket] vas_reads_per_uid is 1: a second read by the same user is `busy` (-32016)
            // exactly while the first waits, which tells the test it is queued (no event says so).
            // A probe handled before the read it probes for is queued itself (for 1 ms) and makes
            // that read `busy`: then the read is sent again.
            let probe = #"{"jsonrpc":"2.0","id":9,"method":"vas.read","params":{"reader":"\#(reader)","timeout_ms":1}}"#
            let peerRead = #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"\#(reader)","merchants":["\#(VASScenarioTests.loyalty)"],"timeout_ms":30000}}"#
            var attempt = 0
            var peer = try Self.nobody(vas, lines: [peerRead], name: "peer0")
            try vas.rig.waitFor("nobody's vas.read to wait") {
                attempt += 1
                if let (process, output) = try? Self.nobody(vas, lines: [probe], name: "probe\(attempt)") {
                    _ = process.wait(seconds: 10)
                    if Self.text(output).contains("-32016") { return true }
                }
                if Self.text(peer.1).contains("-32016"), let again = try? Self.nobody(vas, lines: [peerRead], name: "peer\(attempt)") {
                    peer = again
                }
                return false
            }
            let till = try LineClient(path: vas.rig.socketPath)
            let tillRead = #"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"\#(reader)","timeout_ms":30000}}"#
            try till.sendLine(tillRead)
            try vas.rig.waitFor("the till's vas.read to wait") {
                if let second = try? LineClient(path: vas.rig.socketPath), (try? second.sendLine(probe)) != nil,
                    let answer = try? second.readJSON(what: "the till's probe", until: { $0["id"] as? Int == 9 }),
                    (answer["error"] as? [String: Any])?["code"] as? Int == -32016
                {
                    return true
                }
                if let early = try? till.readJSON(timeout: 0.05, what: "a busy answer", until: { $0["id"] as? Int == 2 }),
                    (early["error"] as? [String: Any])?["code"] as? Int == -32016
                {
                    try? till.sendLine(tillRead)
                }
                return false
            }

            let event = try vas.tap()
            #expect(try PhoneRig.entries(event).map { $0["status"] as? String } == ["data_not_found", "success"])
            let answer = try till.readJSON(timeout: 10, what: "the till's vas.read answer") { $0["id"] as? Int == 2 }
            let result = try #require(answer["result"] as? [String: Any], "\(answer)")
            let entries = try PhoneRig.entries(result)
            #expect(entries.map { $0["status"] as? String } == ["data_not_found", "success"])
            #expect(entries[1]["message"] as? String == PhoneRig.message)

            #expect(peer.0.wait(seconds: 20).inTime)
            let peerAnswer = try #require(try Self.messages(peer.1).first { $0["id"] as? Int == 1 })
            let peerResult = try #require(peerAnswer["result"] as? [String: Any], "\(peerAnswer)")
            #expect(try PhoneRig.entries(peerResult).map { $0["status"] as? String } == ["data_not_found", "not_requested"])
            #expect(!Self.text(peer.1).contains(PhoneRig.message))
            let apdus = try #require(try vas.rig.cardCommand("apdus")["apdus"] as? [String])
            #expect(apdus.filter { $0.hasPrefix("80CA01") }.count == 2)
        }
    }
}
