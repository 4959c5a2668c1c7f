import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Spawned {
    /// A finished command: exit status and everything it wrote to stdout and stderr.
    struct Finished {
        let status: Int32
        let output: String
    }

    /// A running command whose stdout and stderr go to one temporary file. It remembers the exit
    /// status once reaped, so ``hasFinished()`` can be polled before ``finish(deadline:)``.
    final class Capture {
        let process: Spawned
        let file: String
        private var status: Int32?

        init(process: Spawned, file: String) {
            self.process = process
            self.file = file
        }

        /// Whether the command has exited (reaping it if so).
        func hasFinished() -> Bool {
            if status != nil { return true }
            var raw: Int32 = 0
            guard waitpid(process.pid, &raw, WNOHANG) == process.pid else { return false }
            status = Spawned.exitCode(waitStatus: raw)
            return true
        }

        /// Waits for the command (killing it after `deadline` seconds, so a test cannot hang),
        /// then returns its status and output and removes the file.
        func finish(deadline: TimeInterval = 60) -> Finished {
            let end = Date().addingTimeInterval(deadline)
            while !hasFinished() {
                if Date() > end {
                    process.signal(SIGKILL)
                    status = process.wait()
                    break
                }
                usleep(20_000)
            }
            defer { try? FileManager.default.removeItem(atPath: file) }
            return Finished(status: status ?? -1, output: (try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
        }
    }

    /// Starts `executable` with its output captured; `environment` is added to the test's own.
    static func startCapturing(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Capture {
        let file = NSTemporaryDirectory() + "passtap-run-\(UUID().uuidString)"
        return Capture(process: try start(executable, arguments, stdout: file, stderr: file, environment: environment), file: file)
    }

    /// Runs `executable` to the end and returns its status and output.
    static func finish(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], deadline: TimeInterval = 60
    ) throws -> Finished {
        try startCapturing(executable, arguments, environment: environment).finish(deadline: deadline)
    }
}
