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

    /// A running command whose stdout and stderr go to one temporary file.
    struct Capture {
        let process: Spawned
        let file: String

        /// Waits for the command (killing it after `deadline` seconds, so a test cannot hang),
        /// then returns its status and output and removes the file.
        func finish(deadline: TimeInterval = 60) -> Finished {
            let end = Date().addingTimeInterval(deadline)
            var status: Int32 = 0
            while waitpid(process.pid, &status, WNOHANG) == 0 {
                if Date() > end {
                    process.signal(SIGKILL)
                    waitpid(process.pid, &status, 0)
                    break
                }
                usleep(20_000)
            }
            let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            defer { try? FileManager.default.removeItem(atPath: file) }
            return Finished(status: code, output: (try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
        }
    }

    /// Starts `executable` with its output captured.
    static func startCapturing(_ executable: String, _ arguments: [String]) throws -> Capture {
        let file = NSTemporaryDirectory() + "passtap-run-\(UUID().uuidString)"
        return Capture(process: try start(executable, arguments, stdout: file, stderr: file), file: file)
    }

    /// Runs `executable` to the end and returns its status and output.
    static func finish(_ executable: String, _ arguments: [String], deadline: TimeInterval = 60) throws -> Finished {
        try startCapturing(executable, arguments).finish(deadline: deadline)
    }
}
