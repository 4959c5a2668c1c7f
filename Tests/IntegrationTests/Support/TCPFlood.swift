import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `scripts/rig/tcp_flood.py` run as `nobody` (through `setpriv`) against a TCP port: it holds
/// `connections` connections and opens a new one for each the listener closes. Its reports go to
/// a file in the rig's folder; ``closed`` reads the latest.
final class TCPFlood {
    private let process: Spawned
    private let output: URL
    private var running = true

    /// Starts the flood against 127.0.0.1:`port`, reporting into `directory`. The script runs
    /// from a copy in `directory`: `nobody` may not be able to read the checkout (a clone in a
    /// 0700 folder, as `mktemp -d` makes).
    init(port: Int, connections: Int, reportEvery: Int = 200, directory: URL) throws {
        output = directory.appendingPathComponent("flood-\(port).out")
        let script = directory.appendingPathComponent("tcp_flood.py")
        if !FileManager.default.fileExists(atPath: script.path) {
            try FileManager.default.copyItem(at: Rig.repository.appendingPathComponent("scripts/rig/tcp_flood.py"), to: script)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: script.path)
        }
        process = try Spawned.start(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
                script.path, "127.0.0.1", String(port),
                "--connections", String(connections), "--report-every", String(reportEvery),
            ],
            stdout: output.path, stderr: output.path + ".err")
    }

    deinit { stop() }

    /// How many of its connections the listener has closed, by the latest report.
    var closed: Int {
        let lines = ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n")
        guard let last = lines.last, let report = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else { return 0 }
        return report["closed"] as? Int ?? 0
    }

    /// What the flood wrote to stderr (why it stopped, if it did).
    var errors: String { (try? String(contentsOfFile: output.path + ".err", encoding: .utf8)) ?? "" }

    /// Whether it stopped by itself.
    func hasExited() -> Bool { process.hasExited() }

    /// Stops it (SIGTERM) and waits for it; once.
    func stop() {
        guard running else { return }
        running = false
        process.signal(SIGTERM)
        process.wait(seconds: 20)
    }
}
