import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`: Foundation's `Process`
/// was seen to hang in `waitUntilExit` on this platform when children start daemons.
struct Spawned {
    let pid: pid_t

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Starts `executable` with `arguments`; stdout and stderr go to the given files (appended),
    /// stdin is /dev/null. `environment` is added to the test process's own.
    static func start(
        _ executable: String, _ arguments: [String], stdout: String, stderr: String, environment: [String: String] = [:]
    ) throws -> Spawned {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // Nothing else is inherited: libnfc opens its serial port and its abort pipe without
        // O_CLOEXEC, and a child holding that pipe's read end would keep an in-process test's
        // abort from waking libnfc (closing the read end is how pn532_uart aborts).
        guard let closeFrom = Self.addCloseFrom, closeFrom(&actions, 3) == 0 else {
            throw POSIXError(.ENOSYS)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The calling thread (a test worker) blocks signals; the child must not inherit that, or
        // SIGTERM would never reach it. Start it with an empty mask and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw Rig.Failure(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return Spawned(pid: pid)
    }

    /// Waits for the child to exit and returns its exit status (128 + signal when killed).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Self.exitCode(waitStatus: status)
    }

    /// Waits at most `seconds` for the child to exit, then kills it (SIGKILL) and reaps it, so a
    /// test never waits forever on a process. Returns its exit status (128 + signal when killed)
    /// and whether it exited by itself in time.
    @discardableResult
    func wait(seconds: Double) -> (status: Int32, inTime: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return (Self.exitCode(waitStatus: status), true) }
            if reaped < 0 && errno != EINTR { return (-1, true) }  // not our child any more
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        return (wait(), false)
    }

    /// A `waitpid` status as a shell shows it: the exit code, or 128 + the signal that killed it.
    static func exitCode(waitStatus status: Int32) -> Int32 {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Whether the child has exited (reaping it if so).
    func hasExited() -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    func signal(_ number: Int32) {
        kill(pid, number)
    }
}
