import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `passtapd` started by a test, run under `strace -f` when `PASSTAP_STRACE_DIR` names a
/// folder (`scripts/syscall-check` sets it, to compare every system call the daemon makes with
/// the unit's `SystemCallFilter=`). `PASSTAP_STRACE_PRELOAD` names a library to preload into the
/// traced passtapd only.
///
/// Traced, the process the test started is strace, and passtapd is strace's child. A signal sent
/// to strace never reaches its tracee, so signals go to ``pid``, passtapd's own pid (the one
/// `/proc`, the socket's peer credentials and the log show), while ``process`` is what is reaped:
/// strace exits with passtapd's status once passtapd has exited.
struct DaemonProcess {
    /// The process the test started and reaps: strace when traced, passtapd otherwise.
    let process: Spawned
    /// passtapd's own process id: signal this one.
    let pid: pid_t

    /// The folder traces are written to, when tracing was asked for.
    static var traceDirectory: String? {
        guard let folder = ProcessInfo.processInfo.environment["PASSTAP_STRACE_DIR"], !folder.isEmpty else { return nil }
        return folder
    }

    /// Starts `executable` (passtapd) with `arguments`, its output appended to `log`. Traced, the
    /// trace of passtapd and all its threads goes to `PASSTAP_STRACE_DIR/passtapd-<traceName>.trace`
    /// (one line per system call, each starting with the thread id). With a `launcher` (a command
    /// that sets something up, then execs its arguments, as `prlimit --nofile=N:N --` does),
    /// passtapd is started through it and keeps its process id.
    static func start(
        _ executable: String, _ arguments: [String], log: String, traceName: String, environment added: [String: String] = [:],
        launcher: [String] = []
    ) throws -> DaemonProcess {
        guard let folder = traceDirectory else {
            let command = launcher + [executable] + arguments
            let process = try Spawned.start(command[0], Array(command.dropFirst()), stdout: log, stderr: log, environment: added)
            return DaemonProcess(process: process, pid: process.pid)
        }
        let trace = folder + "/passtapd-\(traceName).trace"
        // PASSTAP_STRACE_PRELOAD: a library preloaded into passtapd alone (not into strace or the
        // tests), e.g. scripts/rig/refused_calls_shim.c, which makes calls the unit refuses fail.
        // A test's own LD_PRELOAD goes to passtapd the same way, both libraries loaded.
        var added = added
        let preloads = [added.removeValue(forKey: "LD_PRELOAD"), ProcessInfo.processInfo.environment["PASSTAP_STRACE_PRELOAD"]]
            .compactMap { $0 }.filter { !$0.isEmpty }
        let environment = preloads.isEmpty ? [] : ["-E", "LD_PRELOAD=" + preloads.joined(separator: ":")]
        let strace = try Spawned.start(
            "/usr/bin/strace", ["-f", "-qq", "-o", trace] + environment + ["--"] + launcher + [executable] + arguments, stdout: log, stderr: log,
            environment: added)
        // strace forks, and the child execs passtapd (through the launcher, if any): its pid is
        // passtapd's from then on.
        let target = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let child = childrenOf(strace.pid).first(where: { executablePath(of: $0) == target }) {
                return DaemonProcess(process: strace, pid: child)
            }
            if strace.hasExited() {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw Rig.Failure(description: "strace exited before passtapd ran: \(output)")
            }
            usleep(10_000)
        }
        strace.signal(SIGKILL)
        strace.wait()
        throw Rig.Failure(description: "strace did not start \(executable) within 15 s")
    }

    /// Sends `number` to passtapd itself.
    func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Waits at most `seconds` for passtapd to exit (and strace with it), then kills both
    /// (SIGKILL) and reaps them, as ``Spawned/wait(seconds:)`` does. Returns the exit status
    /// (128 + signal when killed) and whether it exited by itself in time.
    @discardableResult
    func wait(seconds: Double) -> (status: Int32, inTime: Bool) {
        guard process.pid != pid else { return process.wait(seconds: seconds) }
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let reaped = waitpid(process.pid, &status, WNOHANG)
            if reaped == process.pid { return (Spawned.exitCode(waitStatus: status), true) }
            if reaped < 0 && errno != EINTR { return (-1, true) }
            usleep(20_000)
        }
        // strace does not kill its tracee when it dies: kill passtapd first.
        kill(pid, SIGKILL)
        kill(process.pid, SIGKILL)
        return (process.wait(), false)
    }

    private static func childrenOf(_ pid: pid_t) -> [pid_t] {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8) else { return [] }
        return text.split(separator: " ").compactMap { pid_t($0) }
    }

    private static func executablePath(of pid: pid_t) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }
}
