import Foundation

#if canImport(Glibc)
import Glibc
import PassTapTestNetwork
#endif

/// The real parts, started for one scenario: a private pcscd with the vsmartcard-vpcd virtual
/// readers (`scripts/rig/pcscd-rig`), our virtual card (`scripts/rig/virtual_card.py`) in control
/// mode on the first reader (and, if asked, a second card on the second reader), and the built
/// `passtapd` binary with a config of the scenario's own.
///
/// There is one pcscd per machine, so scenarios using a rig live in one `.serialized` suite.
final class Rig {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The directory of the built products (`passtapd`, `passtap`): next to the test bundle.
    static var binaries: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: beside.appendingPathComponent("passtapd").path) { return beside }
        return repository.appendingPathComponent(".build/debug")
    }

    let directory: URL
    let port: Int
    var socketPath: String { directory.appendingPathComponent("passtapd.sock").path }
    /// The escape reader's calls, one line each (`Rig(escapeReader:)`).
    var escapeLog: String { directory.appendingPathComponent("escape.log").path }
    /// The reader of the first card: vpcd on ``port``.
    var readerID: String { "pcsc:Virtual PCD 00 00" }
    /// The reader of the second card: vpcd on ``port`` + 1.
    var secondReaderID: String { "pcsc:Virtual PCD 00 01" }
    private var daemon: DaemonProcess?
    /// How many times this rig started passtapd (names its trace under `PASSTAP_STRACE_DIR`).
    private var daemonStarts = 0
    /// Added to passtapd's environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`...).
    private let daemonEnvironment: [String: String]
    /// Whether passtapd is told its stderr (its log file) is the journal's stream.
    private let journalStream: Bool
    /// passtapd's open-file limit (through `prlimit`); `nil`: the test's own.
    private let openFileLimit: (soft: Int, hard: Int)?
    /// The virtual cards by number: 1 on the first reader, 2 on the second.
    private var cards: [Int: Spawned] = [:]

    /// Starts pcscd and the virtual card, then passtapd with `config` (TOML without `[socket] path`,
    /// which the rig adds). `prepare` runs first with the rig's folder, to write files the card
    /// and the config name (keys, a phone profile); `cardArguments` are added to the card's, with
    /// `{rig}` replaced by that folder. With `secondCardArguments`, a second card (number 2) is
    /// started on the second reader with those arguments (`{rig}` replaced too). With
    /// `openFileLimit`, passtapd starts with that soft and hard `RLIMIT_NOFILE`.
    init(
        config: String, cardArguments: [String] = [], secondCardArguments: [String]? = nil,
        pcscd: Bool = true, emulatorArguments: [String]? = nil, daemonEnvironment: [String: String] = [:], journalStream: Bool = false,
        openFileLimit: (soft: Int, hard: Int)? = nil, escapeReader: String? = nil, prepare: (URL) throws -> Void = { _ in }
    ) throws {
        self.daemonEnvironment = daemonEnvironment
        self.journalStream = journalStream
        self.openFileLimit = openFileLimit
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("passtap-rig-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try prepare(directory)
        if pcscd {
            try Self.waitForNoForeignPcscd()
            // With `escapeReader` (libccid, acsccid, hidden), a third reader pair answers
            // SCardControl as an ACR1252U (scripts/rig/ifd_escape_wrapper.c); its calls go to
            // `escapeLog`.
            let rigScript = Self.repository.appendingPathComponent("scripts/rig/pcscd-rig").path
            let output = try Self.run("/usr/bin/env", ["PASSTAP_RIG_ESCAPE=\(escapeReader ?? "")", rigScript, "start", directory.path])
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("port=") }), let port = Int(line.dropFirst(5)) else {
                throw Failure(description: "pcscd-rig did not report a port: \(output)")
            }
            self.port = port
        } else {
            port = 0
        }
        do {
            if pcscd {
                try startCard(1, arguments: cardArguments)
                if let secondCardArguments { try startCard(2, arguments: secondCardArguments) }
            }
            if let emulatorArguments { try startEmulator(arguments: emulatorArguments) }
            try startDaemon(config: config.replacingOccurrences(of: "{rig}", with: directory.path))
        } catch {
            stop()
            throw error
        }
    }

    /// Starts the virtual card `number` (1 or 2) on its reader (vpcd on ``port`` + number - 1),
    /// with `arguments` added to its own (`{rig}` replaced by the rig's folder). Card 1's control
    /// socket and log are `card.sock` and `card.log`; card 2's `card2.sock` and `card2.log`.
    func startCard(_ number: Int, arguments: [String] = []) throws {
        guard number == 1 || number == 2 else { throw Failure(description: "vpcd has two readers; no card \(number)") }
        guard cards[number] == nil else { throw Failure(description: "virtual card \(number) already runs") }
        let log = try touch(number == 1 ? "card.log" : "card\(number).log").path
        let socket = controlSocket(of: number)
        cards[number] = try Spawned.start(
            "/usr/bin/env",
            [
                "python3", Self.repository.appendingPathComponent("scripts/rig/virtual_card.py").path,
                "--control", socket, "--port", String(port + number - 1),
            ] + arguments.map { $0.replacingOccurrences(of: "{rig}", with: directory.path) }, stdout: log, stderr: log)
        try waitFor("virtual card \(number)'s control socket") { FileManager.default.fileExists(atPath: socket) }
    }

    /// The emulated PN532's pty link (libnfc opens `pn532_uart:` + this path).
    var emulatorLink: String { PN532Emulator.link(in: directory) }
    /// The emulated PN532's reader id in passtapd.
    var nfcReaderID: String { "nfc:pn532_uart:" + emulatorLink }
    private var emulator: PN532Emulator?

    /// Waits until `readers.list` shows the reader (the emulated PN532's unless `reader` names
    /// another) in `state`.
    func waitForReader(_ reader: String? = nil, state: String, timeout: Double = 15) throws {
        let id = reader ?? nfcReaderID
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let client = try LineClient(path: socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"readers.list"}"#)
            let answer = try client.readJSON(what: "readers.list") { $0["id"] as? Int == 1 }
            let readers = ((answer["result"] as? [String: Any])?["readers"] as? [[String: Any]]) ?? []
            if readers.contains(where: { $0["id"] as? String == id && $0["state"] as? String == state }) { return }
            guard Date() < deadline else { throw Failure(description: "reader \(id) never \(state): \(readers)\n\(daemonLog)") }
            usleep(50_000)
        }
    }

    /// Starts the emulated PN532 in the rig's folder (see ``PN532Emulator``) with `arguments`
    /// added (`{rig}` replaced by the rig's folder).
    func startEmulator(arguments: [String] = []) throws {
        guard emulator == nil else { throw Failure(description: "the emulated PN532 already runs") }
        emulator = try PN532Emulator(in: directory, arguments: arguments.map { $0.replacingOccurrences(of: "{rig}", with: directory.path) })
    }

    /// Sends a line command to the emulated PN532 and returns its JSON answer.
    @discardableResult
    func emulatorCommand(_ command: String) throws -> [String: Any] {
        guard let emulator else { throw Failure(description: "the emulated PN532 was not started") }
        return try emulator.command(command)
    }

    /// The emulator's log so far, for failure messages.
    var emulatorLog: String { emulator?.log ?? "" }

    private func controlSocket(of card: Int) -> String {
        directory.appendingPathComponent(card == 1 ? "card.sock" : "card\(card).sock").path
    }

    /// Starts passtapd (again) with `config`.
    func startDaemon(config: String) throws {
        let file = directory.appendingPathComponent("passtapd.toml")
        try "[socket]\npath = \"\(socketPath)\"\n\(config)".write(to: file, atomically: true, encoding: .utf8)
        let log = try touch("passtapd.log").path
        var environment = daemonEnvironment
        if journalStream {
            // As systemd sets it: the device and inode of the stream stderr is connected to.
            var status = stat()
            guard stat(log, &status) == 0 else { throw Failure(description: "cannot stat \(log)") }
            environment["JOURNAL_STREAM"] = "\(status.st_dev):\(status.st_ino)"
        }
        daemonStarts += 1
        daemon = try DaemonProcess.start(
            Self.binaries.appendingPathComponent("passtapd").path, ["--config", file.path], log: log,
            traceName: "\(directory.lastPathComponent)-\(daemonStarts)", environment: environment,
            launcher: openFileLimit.map { ["/usr/bin/prlimit", "--nofile=\($0.soft):\($0.hard)", "--"] } ?? [])
        try waitFor("passtapd's socket") { (try? LineClient(path: self.socketPath)) != nil }
    }

    /// Starts `scripts/rig/hold_reader.py`, which opens `reader` exclusively and holds its card
    /// (another program holding the reader), and returns once it does; stop it with SIGTERM.
    func holdReader(_ reader: String = "Virtual PCD 00 00") throws -> Spawned {
        let log = directory.appendingPathComponent("holder.log").path
        let holder = try Spawned.start(
            "/usr/bin/python3", [Self.repository.appendingPathComponent("scripts/rig/hold_reader.py").path, reader], stdout: log, stderr: log)
        try waitFor("the holder to hold the card") { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("held") }
        return holder
    }

    /// Sends a line command to virtual card `card` (1, the first reader's, by default; 2 for the
    /// second reader's) and returns its JSON answer.
    @discardableResult
    func cardCommand(_ command: String, card: Int = 1) throws -> [String: Any] {
        guard cards[card] != nil else { throw Failure(description: "virtual card \(card) was not started") }
        return try LineClient.command(command, at: controlSocket(of: card), peer: "virtual card \(card)")
    }

    /// A client connected to passtapd and subscribed (optionally from `since`); returns the
    /// socket and the subscribe result.
    func subscriber(since: UInt64? = nil, kinds: [String]? = nil) throws -> (LineClient, [String: Any]) {
        let client = try LineClient(path: socketPath)
        var params: [String: Any] = [:]
        if let since { params["since"] = since }
        if let kinds { params["kinds"] = kinds }
        let request: [String: Any] = ["jsonrpc": "2.0", "id": 1, "method": "events.subscribe", "params": params]
        try client.sendLine(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self))
        let answer = try client.readJSON(what: "the events.subscribe answer") { $0["id"] as? Int == 1 }
        guard let result = answer["result"] as? [String: Any] else { throw Failure(description: "subscribe failed: \(answer)") }
        return (client, result)
    }

    /// Kills pcscd outright (as a crash would) and returns once it is gone.
    func killPcscd() throws {
        let pid = try String(contentsOf: directory.appendingPathComponent("pcscd.pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let number = Int32(pid) else { throw Failure(description: "no pcscd pid") }
        kill(number, SIGKILL)
        try waitFor("pcscd to die") { !Self.isAlive(number) }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("pcscd.pid"))
    }

    /// Starts pcscd again with the same readers and port.
    func restartPcscd() throws {
        _ = try Self.run(Self.repository.appendingPathComponent("scripts/rig/pcscd-rig").path, ["start", directory.path, String(port)])
    }

    /// The daemon's process id (passtapd's own, also when it runs under strace).
    var daemonPID: Int32 { daemon?.pid ?? 0 }

    /// Sends SIGTERM to passtapd and waits for it; returns the seconds it took.
    @discardableResult
    func stopDaemon() -> Double {
        guard let daemon else { return 0 }
        let start = Date()
        daemon.signal(SIGTERM)
        daemon.wait(seconds: 20)  // then SIGKILL: the caller's time check fails, the test does not hang
        self.daemon = nil
        return Date().timeIntervalSince(start)
    }

    /// The daemon's log so far, for failure messages.
    var daemonLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("passtapd.log"), encoding: .utf8)) ?? ""
    }

    /// Stops everything the rig started.
    func stop() {
        stopDaemon()
        for card in cards.values {
            card.signal(SIGTERM)
            card.wait(seconds: 10)
        }
        cards = [:]
        emulator?.stop()
        emulator = nil
        if port != 0 {
            _ = try? Self.run(Self.repository.appendingPathComponent("scripts/rig/pcscd-rig").path, ["stop", directory.path])
        }
    }

    private func touch(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return url
    }

    func waitFor(_ what: String, timeout: Double = 15, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw Failure(description: "timed out waiting for \(what)\n\(daemonLog)") }
            usleep(20_000)
        }
    }

    /// Whether `pid` runs (a zombie does not: pcscd-rig's pcscd is reparented and may stay
    /// unreaped once dead).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    /// Another pcscd (a developer's, another suite's) may hold the machine's only pcscd socket.
    private static func waitForNoForeignPcscd() throws {
        let deadline = Date().addingTimeInterval(20)
        while (try? run("/bin/pidof", ["pcscd"])).map({ !$0.isEmpty }) ?? false {
            guard Date() < deadline else {
                throw Failure(description: "another pcscd is running; stop it (systemctl stop pcscd.socket pcscd)")
            }
            usleep(200_000)
        }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 60) throws -> String {
        // Output goes to a file, not a pipe: a daemon started by the command (pcscd) could keep
        // a pipe open forever.
        let output = NSTemporaryDirectory() + "passtap-run-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let (status, inTime) = try Spawned.start(executable, arguments, stdout: output, stderr: output).wait(seconds: timeout)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard inTime else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) was killed after \(timeout) s: \(text)")
        }
        if status != 0 && executable != "/bin/pidof" {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(text)")
        }
        return text
    }
}
