import Foundation

#if canImport(Glibc)
import Glibc
import PassTapTestNetwork
#endif

/// The emulated PN532 (`scripts/rig/pn532_emulator.py`) on a pseudo-terminal linked at ``link``,
/// driven through its line-command control socket. Its files are in its folder: the link
/// `pn532`, the control socket `pn532.sock`, the frame record `pn532-frames.jsonl` and the log
/// `pn532.log`. It is stopped by ``stop()``, or when it is released.
final class PN532Emulator {
    let directory: URL
    private let process: Spawned
    /// Whether the folder is the emulator's own, removed when it stops.
    private let ownsDirectory: Bool
    private var stopped = false

    /// The pty link libnfc opens (`pn532_uart:` + this path).
    var link: String { Self.link(in: directory) }
    var socket: String { directory.appendingPathComponent("pn532.sock").path }

    static func link(in directory: URL) -> String { directory.appendingPathComponent("pn532").path }

    /// Starts the emulator with `arguments` added to its own, in `directory` (a rig's folder), or
    /// in a new temporary folder of its own; returns once it is ready.
    init(in directory: URL? = nil, arguments: [String] = []) throws {
        ownsDirectory = directory == nil
        let directory = directory ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("passtap-nfc-\(UUID().uuidString.prefix(8))")
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("pn532.log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let ready = directory.appendingPathComponent("pn532.ready").path
        let process = try Spawned.start(
            "/usr/bin/env",
            [
                "python3", Rig.repository.appendingPathComponent("scripts/rig/pn532_emulator.py").path,
                "--link", Self.link(in: directory), "--control", directory.appendingPathComponent("pn532.sock").path, "--ready-file", ready,
                "--record", directory.appendingPathComponent("pn532-frames.jsonl").path,
            ] + arguments, stdout: log, stderr: log)
        self.process = process
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: ready) {
            guard Date() < deadline, !process.hasExited() else {
                stop()
                throw Rig.Failure(description: "the emulated PN532 did not start: \(self.log)")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// Sends a line command and returns its JSON answer, which must be `ok`.
    @discardableResult
    func command(_ line: String) throws -> [String: Any] {
        try LineClient.command(line, at: socket, peer: "the emulated PN532")
    }

    /// Its log so far, for failure messages.
    var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("pn532.log"), encoding: .utf8)) ?? ""
    }

    /// Stops the emulator (and removes its folder if it is its own); again does nothing.
    func stop() {
        guard !stopped else { return }
        stopped = true
        process.signal(SIGTERM)
        _ = process.wait(seconds: 10)
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }
}
