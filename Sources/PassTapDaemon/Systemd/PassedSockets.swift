import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The listening sockets systemd passed to passtapd from its socket units (sd_listen_fds(3)'s
/// protocol, read here): `$LISTEN_PID` is this process, `$LISTEN_FDS` sockets start at descriptor
/// 3, and `$LISTEN_FDNAMES` names each, colon-separated, from the unit's `FileDescriptorName=`.
/// passtapd serves those named `web` on `[web] listen` and those named `metrics` on
/// `[metrics] listen` (see `ListenerSockets.adopting`), instead of binding the ports itself, so
/// the socket units hold the ports even while passtapd is down.
package struct PassedSockets: Sendable {
    /// The descriptors by name, in the order systemd passed them.
    package private(set) var byName: [String: [CInt]]

    /// No sockets (not started by systemd, or no socket unit).
    package static let none = PassedSockets(byName: [:])

    /// The sockets `byName` lists.
    package init(byName: [String: [CInt]]) {
        self.byName = byName
    }

    /// The names passtapd serves.
    package static let names: Set<String> = ["web", "metrics"]

    /// Reads what systemd passed from `environment`, for the process `pid`. Sockets passed to
    /// another process (`$LISTEN_PID` differs: the variables were inherited) count as none. A
    /// socket without a name is named `unknown`, as sd_listen_fds_with_names(3) does.
    package static func read(environment: [String: String], pid: Int32) -> PassedSockets {
        guard let listenPID = environment["LISTEN_PID"].flatMap(Int32.init), listenPID == pid,
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count > 0
        else { return .none }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        var byName: [String: [CInt]] = [:]
        for index in 0..<count {
            let name = index < names.count && !names[index].isEmpty ? names[index] : "unknown"
            byName[name, default: []].append(CInt(3 + index))
        }
        return PassedSockets(byName: byName)
    }

    /// Takes the sockets systemd passed to this process: reads them, marks them close-on-exec and
    /// removes the variables from the environment, so nothing passtapd starts inherits them.
    package static func takeFromEnvironment() -> PassedSockets {
        let passed = read(environment: ProcessInfo.processInfo.environment, pid: getpid())
        for descriptors in passed.byName.values {
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        return passed
    }

    /// Takes the sockets named `name` out of the set; `nil` when systemd passed none by that name.
    package mutating func take(_ name: String) -> [CInt]? {
        byName.removeValue(forKey: name)
    }
}
