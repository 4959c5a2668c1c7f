import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
import VASSettings
#endif

/// Shell one-liners against the built passtapd, as `docs/socket-api.md` shows them: requests
/// piped into `socat` or netcat-openbsd's `nc -U`, which end their input (a half-close) as soon
/// as the pipe ends and then print what comes back. No pcscd: the daemon runs with PC/SC off, and
/// the emulated PN532 (libnfc) is the reader where a tap is needed.
@Suite(.serialized) struct OneShotClientScenarioTests {
    /// The one-liners, `{socket}` standing for the socket path; each reads its requests from stdin.
    static let oneShotClients = [
        "socat - UNIX-CONNECT:{socket}",
        "socat -t 2 - UNIX-CONNECT:{socket}",
        "nc.openbsd -U -q 2 {socket}",
        "nc.openbsd -N -U {socket}",
    ]

    /// A client started by the shell with `lines` on its standard input; its output goes to a file.
    struct PipedClient {
        let process: Spawned
        let output: String

        /// Starts `command` (`{socket}` replaced) on the rig's socket with `lines` as its input.
        init(_ command: String, lines: [String], rig: Rig) throws {
            let name = UUID().uuidString.prefix(8)
            let input = rig.directory.appendingPathComponent("client-\(name).in").path
            output = rig.directory.appendingPathComponent("client-\(name).out").path
            try lines.map { $0 + "\n" }.joined().write(toFile: input, atomically: true, encoding: .utf8)
            // `exec`: the signal that stops a client goes to it, not to a shell around it.
            let shell = "exec " + command.replacingOccurrences(of: "{socket}", with: "'\(rig.socketPath)'") + " < '\(input)'"
            process = try Spawned.start("/bin/sh", ["-c", shell], stdout: output, stderr: output)
        }

        /// The output so far, one string per line.
        var lines: [String] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// The output's JSON objects so far.
        var messages: [[String: Any]] {
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        /// Waits until a message satisfies `match` and returns it.
        func waitFor(_ what: String, timeout: Double = 15, _ match: ([String: Any]) -> Bool) throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(timeout)
            while true {
                if let message = messages.first(where: match) { return message }
                guard Date() < deadline else { throw Rig.Failure(description: "timed out after \(timeout) s waiting for \(what); output: \(lines)") }
                usleep(20_000)
            }
        }
    }

    static func request(_ id: Int, _ method: String, _ params: [String: Any]? = nil) throws -> String {
        var object: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params { object["params"] = params }
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func kind(_ message: [String: Any]) -> String? {
        (message["params"] as? [String: Any])?["kind"] as? String
    }

    /// Connects `count` clients at once and checks that the daemon serves each (none is refused
    /// as over `max_clients`), retrying for a while: a client that went away frees its slot once
    /// the daemon notices the close.
    static func daemonServes(_ count: Int, clientsOf rig: Rig) throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let clients = try (0..<count).map { _ in try LineClient(path: rig.socketPath) }
            var served = 0
            for client in clients {
                // A refused client gets -32006 and is closed (its read may fail instead).
                try? client.sendLine(try request(1, "status"))
                let answer = try? client.readJSON(what: "a status answer") { $0["id"] != nil }
                if answer?["result"] != nil { served += 1 }
            }
            if served == count { return true }
            guard Date() < deadline else { return false }
            usleep(50_000)
        }
    }

    @Test(arguments: oneShotClients)
    func requestsPipedIntoAOneShotClientAreAllAnsweredInOrder(command: String) throws {
        let rig = try Rig(config: "[pcsc]\nenabled = false", pcscd: false)
        defer { rig.stop() }
        let lines = [
            try Self.request(1, "status"),
            try Self.request(2, "readers.list"),
            #"{"jsonrpc":"2.0","id":3,"method":"status",}"#,  // not strict JSON: -32700, not carried out
        ]
        let client = try PipedClient(command, lines: lines, rig: rig)
        let (status, inTime) = client.process.wait(seconds: 15)
        #expect(inTime && status == 0, "\(command) exited \(status)")
        let messages = client.messages
        #expect(messages.count == 3, "\(client.lines)\n\(rig.daemonLog)")
        guard messages.count == 3 else { return }
        #expect(messages[0]["id"] as? Int == 1)
        #expect((messages[0]["result"] as? [String: Any])?["protocol"] as? Int == 1)
        #expect(messages[1]["id"] as? Int == 2)
        #expect((messages[1]["result"] as? [String: Any])?["readers"] is [Any])
        #expect(messages[2]["id"] is NSNull)
        #expect((messages[2]["error"] as? [String: Any])?["code"] as? Int == -32700)
    }

    /// socat quits by itself `-t` seconds after its input ended; `nc -N -U` ends its input too
    /// but streams until it is stopped (Ctrl-C, here SIGINT): its `-q` timer would only start once
    /// the daemon closed.
    @Test(arguments: [("socat -t 6 - UNIX-CONNECT:{socket}", false), ("nc.openbsd -N -U {socket}", true)])
    func aSubscriptionPipedIntoAOneShotClientStreamsUntilTheClientQuits(command: String, stoppedBySignal: Bool) throws {
        // `max_clients` lands in the rig's [socket] table, right after its `path`.
        let config = "max_clients = 2\n" + LibNFCScenarioTests.config("[session]\naids = [\"A0000000041010\"]")
        let rig = try Rig(config: config, pcscd: false, emulatorArguments: [])
        defer { rig.stop() }
        try rig.waitForReader(state: "empty")
        let client = try PipedClient(command, lines: [try Self.request(1, "events.subscribe")], rig: rig)
        _ = try client.waitFor("the events.subscribe answer") { $0["id"] as? Int == 1 }
        // The client's input has ended; the stream goes on.
        try rig.emulatorCommand("tap")
        let result = try client.waitFor("a read.result event") { Self.kind($0) == "read.result" }
        #expect((result["params"] as? [String: Any])?["reader"] as? String == rig.nfcReaderID)
        #expect(!client.process.hasExited(), "\(command) quit while subscribed")
        // Its connection holds one of the two slots until it quits.
        if stoppedBySignal { client.process.signal(SIGINT) }
        let (status, inTime) = client.process.wait(seconds: 15)
        #expect(inTime && (stoppedBySignal || status == 0), "\(command) exited \(status)")
        #expect(try Self.daemonServes(2, clientsOf: rig), "the daemon kept the connection of a client that quit")
    }

    @Test(arguments: ["socat -t 30 - UNIX-CONNECT:{socket}", "nc.openbsd -N -U {socket}"])
    func aVASReadPipedIntoAOneShotClientGetsTheNextTap(command: String) throws {
        let rig = try Rig(
            config: LibNFCScenarioTests.config(LibNFCScenarioTests.vas(mode: "vas_or_payment")), pcscd: false,
            emulatorArguments: ["--phone", "{rig}/phone.json"], prepare: LibNFCScenarioTests.preparePhone(requiresECP: true))
        defer { rig.stop() }
        try rig.waitForReader(state: "empty")
        let lines = [
            try Self.request(1, "status"),
            try Self.request(2, "vas.read", ["reader": rig.nfcReaderID, "timeout_ms": 20_000]),
        ]
        let (events, _) = try rig.subscriber(kinds: ["read.result", "card.removed"])
        let client = try PipedClient(command, lines: lines, rig: rig)
        _ = try client.waitFor("the status answer") { $0["id"] as? Int == 1 }
        #expect(!client.process.hasExited(), "\(command) quit while its vas.read waited")
        // No sleep as synchronisation: tap until the vas.read is answered (a tap before the call
        // is queued is a plain tap, and the phone leaves again); the answering tap is the last one.
        var answered: [String: Any]?
        for _ in 0..<10 where answered == nil {
            try rig.emulatorCommand("tap")
            _ = try events.readJSON(timeout: 25, what: "the tap's read.result") { Self.kind($0) == "read.result" }
            answered = try? client.waitFor("the vas.read answer", timeout: 2) { $0["id"] as? Int == 2 }
            if answered == nil {
                try rig.emulatorCommand("remove")
                _ = try events.readJSON(timeout: 15, what: "card.removed") { Self.kind($0) == "card.removed" }
            }
        }
        let answer = try #require(answered, "the vas.read was not answered by any of 10 taps")
        let result = try #require(answer["result"] as? [String: Any], "\(answer)")
        #expect(result["reader"] as? String == rig.nfcReaderID)
        let vas = try #require(result["vas"] as? [String: Any], "\(result)")
        let entries = try #require(vas["entries"] as? [[String: Any]])
        #expect(entries.first?["status"] as? String == "success", "\(entries)")
        #expect(entries.first?["message"] as? String == "member 0042")
        // Answered: the daemon closes the connection, and the client quits without waiting out a timer.
        let (status, inTime) = client.process.wait(seconds: 5)
        #expect(inTime && status == 0, "\(command) exited \(status)")
    }
}
