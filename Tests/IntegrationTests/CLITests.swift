import ForwardSettings
import WebSettings
import Foundation
import Testing

/// The built `passtap` and `passtapd` as a person runs them: exit codes and messages.
@Suite struct CLITests {
    private func run(_ binary: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let finished = try Spawned.finish(Rig.binaries.appendingPathComponent(binary).path, arguments)
        return (finished.status, finished.output)
    }

    @Test func noDaemonExits69SayingHowToStartIt() throws {
        let (status, output) = try run("passtap", ["readers", "--socket", "/nonexistent/passtapd.sock"])
        #expect(status == 69)
        #expect(output.contains("passtapd is not running: no socket at /nonexistent/passtapd.sock"))
    }

    /// An empty `PASSTAP_SOCKET` is unset (as an empty `PASSTAP_DAEMON_USER` is): the default
    /// path is tried and named, never a blank one; an empty `--socket` is a usage error.
    @Test func anEmptySocketVariableIsUnsetAndAnEmptySocketOptionIsAUsageError() throws {
        let finished = try Spawned.finish(
            Rig.binaries.appendingPathComponent("passtap").path, ["readers"], environment: ["PASSTAP_SOCKET": ""])
        #expect(finished.status == 69, "\(finished.output)")
        #expect(finished.output.contains("/run/passtap/passtapd.sock"), "\(finished.output)")
        #expect(!finished.output.contains(":  "), "\(finished.output)")
        let (status, output) = try run("passtap", ["readers", "--socket", ""])
        #expect(status == 64, "\(output)")
        #expect(output.contains("--socket is empty: give the socket's path"), "\(output)")
    }

    /// `passtap status` is a monitoring check: a daemon that is not there is down (2).
    @Test func statusWithNoDaemonExits2Down() throws {
        let (status, output) = try run("passtap", ["status", "--socket", "/nonexistent/passtapd.sock"])
        #expect(status == 2)
        #expect(output.contains("passtapd is not running: no socket at /nonexistent/passtapd.sock"))
    }

    @Test func statusHelpDocumentsItsExitCodes() throws {
        let (status, output) = try run("passtap", ["status", "--help"])
        #expect(status == 0)
        #expect(output.contains("0  healthy") && output.contains("1  degraded") && output.contains("2  down"), "\(output)")
    }

    /// `passtap --help` covers the whole tool (Smart Tap, NDEF, web tokens, forwarding, not only
    /// Apple VAS keys) and prints the one exit code table, which docs/client.md repeats row for
    /// row; passtap(1) is generated from the same help. A daemon that is not running is 69 there,
    /// as `readers` gives it, and `status` keeps 2.
    @Test func helpCoversTheWholeToolAndItsExitCodesMatchClientDocs() throws {
        let (status, help) = try run("passtap", ["--help"])
        #expect(status == 0)
        for topic in ["Google Smart Tap", "NDEF tags", "web-token", "forward secret", "--smarttap", "PostgreSQL"] {
            #expect(help.contains(topic), "passtap --help does not mention \(topic): \(help)")
        }
        let helpRows = help.split(separator: "\n").compactMap { line -> String? in
            let fields = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard line.hasPrefix(" "), fields.count == 2, let code = Int(fields[0]) else { return nil }
            return "\(code) \(fields[1].trimmingCharacters(in: .whitespaces))"
        }
        let docs = try String(contentsOf: Rig.repository.appendingPathComponent("docs/client.md"), encoding: .utf8)
        let section = try #require(docs.components(separatedBy: "### Exit codes\n").dropFirst().first, "docs/client.md has no Exit codes section")
        let table = section.components(separatedBy: "\n#").first ?? ""
        let docRows = table.split(separator: "\n").compactMap { line -> String? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("|"), cells.count == 2, Int(cells[0]) != nil else { return nil }
            return cells.joined(separator: " ")
        }
        #expect(helpRows.count == 13, "\(helpRows)")
        #expect(helpRows == docRows)
        #expect(helpRows.contains { $0.hasPrefix("69 passtapd not running") } && helpRows.contains { $0.hasPrefix("2 status: down") })
    }

    /// passtapd drives readers through both stacks, and its help (and passtapd(8)) says so.
    @Test func passtapdHelpNamesBothReaderStacks() throws {
        let (status, help) = try run("passtapd", ["--help"])
        #expect(status == 0)
        #expect(help.contains("pcsc-lite") && help.contains("libnfc"), "\(help)")
    }

    /// pass-read names both wallets; vas-read, its old name, is the same command.
    @Test func passReadHelpNamesBothWalletsAndVasReadIsItsAlias() throws {
        let (status, output) = try run("passtap", ["pass-read", "--help"])
        #expect(status == 0)
        // The help is wrapped to the terminal's width: compared as one line.
        let oneLine = output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(oneLine.contains("Apple VAS (iPhone) or Google Smart Tap (Android)"), "\(output)")
        let old = try run("passtap", ["vas-read", "--help"])
        #expect(old.status == 0 && old.output == output, "\(old.output)")
        let top = try run("passtap", ["--help"])
        #expect(top.output.contains("pass-read, vas-read"), "\(top.output)")
    }

    @Test func badAPDUHexIsAUsageErrorBeforeConnecting() throws {
        let (status, output) = try run("passtap", ["apdu", "--socket", "/nonexistent/passtapd.sock", "PCD", "00A4X"])
        #expect(status == 64)
        #expect(output.contains("not an APDU"))
    }

    @Test func checkConfigAcceptsTheShippedConfigs() throws {
        let (status, output) = try run("passtapd", ["--check-config", Rig.repository.appendingPathComponent("Config/passtapd.toml").path])
        #expect(status == 0, "Config/passtapd.toml: \(output)")
        #expect(output.contains(": OK (") && output.contains("VAS off"), "\(output)")
    }

    /// Config/demo.toml names the demo merchant key, Smart Tap collector key and dashboard token
    /// that scripts/demo makes under /tmp/passtap-demo; the test makes each with `passtap keygen`
    /// and `passtap web-token` in a folder of its own and points the copy there.
    @Test func checkConfigAcceptsTheDemoConfigWithKeysAndATokenFromTheCLI() throws {
        let folder = NSTemporaryDirectory() + "passtap-demo-check-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = [
            try run("passtap", ["keygen", "--pass-type-id", "pass.com.passtap.demo", "--out", folder + "/keys"]),
            try run("passtap", ["keygen", "--smarttap", "--collector-id", "20180608", "--key-version", "1", "--out", folder + "/keys"]),
            try run("passtap", ["web-token", "--name", "demo", "--out", folder + "/web"]),
        ]
        for result in made { #expect(result.status == 0, "\(result.output)") }
        var config = try String(contentsOf: Rig.repository.appendingPathComponent("Config/demo.toml"), encoding: .utf8)
        for file in ["keys/pass.com.passtap.demo.pem", "keys/smarttap-20180608-v1.pem", "web/demo.token"] {
            #expect(config.contains("\"/tmp/passtap-demo/\(file)\""), "Config/demo.toml names /tmp/passtap-demo/\(file)")
            config = config.replacingOccurrences(of: "/tmp/passtap-demo/\(file)", with: "\(folder)/\(file)")
        }
        let copy = folder + "/demo.toml"
        try config.write(toFile: copy, atomically: true, encoding: .utf8)
        let (status, output) = try run("passtapd", ["--check-config", copy])
        #expect(status == 0, "demo.toml: \(output)")
        #expect(output.contains(": OK (") && output.contains("pass.com.passtap.demo"), "\(output)")
        #expect(output.contains("Smart Tap on: collector 20180608") && output.contains("web on 127.0.0.1:8941 (tokens: demo)"), "\(output)")
    }

    @Test func checkConfigRefusesABadFileNamingFileLineKeyAndExpectation() throws {
        let file = NSTemporaryDirectory() + "passtap-bad-\(UUID().uuidString).toml"
        try "[socket]\nmax_clients = \"many\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (status, output) = try run("passtapd", ["--check-config", file])
        #expect(status == 78)
        #expect(output.contains("\(file):2: socket.max_clients: expected an integer, found a string"))
    }

    /// One AID is "1 AID", not "1 AIDs".
    @Test func checkConfigCountsInTheSingular() throws {
        let file = NSTemporaryDirectory() + "passtap-one-\(UUID().uuidString).toml"
        try "[session]\naids = [\"A0000000041010\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (status, output) = try run("passtapd", ["--check-config", file])
        #expect(status == 0, "\(output)")
        #expect(output.contains(", 1 AID, 0 reader overrides, "), "\(output)")
    }

    /// The config fuzz target's finding: toml++ (in TOMLKit) aborted the daemon on a table header
    /// without a key; the file is now refused like any other broken config.
    @Test func checkConfigRefusesAHeaderWithoutAKeyInsteadOfAborting() throws {
        let file = NSTemporaryDirectory() + "passtap-header-\(UUID().uuidString).toml"
        try "[vas]\nenabled = true\n\n[[~as.merchants]]\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (status, output) = try run("passtapd", ["--check-config", file])
        #expect(status == 78, "\(output)")
        #expect(output.contains("\(file):4: not valid TOML: a table header must begin with a key"), "\(output)")
    }

    /// A config whose file descriptor budget is over the hard open-file limit (set with prlimit):
    /// `--check-config` and the start both refuse it, naming the file, the keys and the numbers.
    @Test func aBudgetOverTheHardOpenFileLimitIsRefusedByCheckConfigAndAtStart() throws {
        let file = NSTemporaryDirectory() + "passtap-fds-\(UUID().uuidString).toml"
        let socket = NSTemporaryDirectory() + "passtap-fds-\(UUID().uuidString).sock"
        try "[socket]\npath = \"\(socket)\"\nmax_clients = 200\n[pcsc]\nenabled = false\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let passtapd = Rig.binaries.appendingPathComponent("passtapd").path
        for arguments in [["--check-config", file], ["--config", file]] {
            let finished = try Spawned.finish("/usr/bin/prlimit", ["--nofile=128:128", "--", passtapd] + arguments, deadline: 30)
            #expect(finished.status == 78, "\(arguments): \(finished.output)")
            #expect(finished.output.contains("\(file): the open-file limit (RLIMIT_NOFILE) 128 (hard 128) is below the file descriptor budget"), "\(finished.output)")
            #expect(finished.output.contains("[socket] max_clients 200"), "\(finished.output)")
            #expect(!FileManager.default.fileExists(atPath: socket), "passtapd started anyway")
        }
        let fits = try Spawned.finish("/usr/bin/prlimit", ["--nofile=128:4096", "--", passtapd, "--check-config", file], deadline: 30)
        #expect(fits.status == 0, "\(fits.output)")
        #expect(fits.output.contains("file descriptors: budget ") && fits.output.contains("open-file limit 128 (hard 4096)"), "\(fits.output)")
    }

    /// Under a soft limit below the budget and a hard one above, passtapd raises its soft limit
    /// to the budget, and says so.
    @Test func aBudgetOverTheSoftOpenFileLimitRaisesItToTheBudget() throws {
        let rig = try Rig(config: "[pcsc]\nenabled = false\n", pcscd: false, openFileLimit: (soft: 64, hard: 4096))
        defer { rig.stop() }
        let budget = try #require(PCSCScenarioTests.MetricsScenarioTests.budget(in: rig.daemonLog), "\(rig.daemonLog)")
        #expect(budget > 64)
        let limits = try String(contentsOfFile: "/proc/\(rig.daemonPID)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }?.split(separator: " ") ?? []
        #expect(openFiles.count >= 5 && openFiles[3] == "\(budget)" && openFiles[4] == "4096", "\(limits)")
        #expect(rig.daemonLog.contains("raised the soft open-file limit to the file descriptor budget"), "\(rig.daemonLog)")
    }

    @Test func versionsAgree() throws {
        let client = try run("passtap", ["--version"])
        let daemon = try run("passtapd", ["--version"])
        #expect(client.status == 0 && daemon.status == 0)
        #expect(client.output == daemon.output && client.output.hasPrefix("0."))
    }
}
