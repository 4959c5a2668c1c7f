import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process's resident memory and CPU time, read from `/proc`: reported in
/// `docs/reliability.md`, never judged by a test.
struct ProcessFigures {
    /// `VmRSS` of `/proc/PID/status`, in KiB.
    let residentKiB: Int
    /// `utime` + `stime` of `/proc/PID/stat`, in milliseconds.
    let cpuMilliseconds: Int

    /// The figures of `pid` now.
    static func of(_ pid: Int32) throws -> ProcessFigures {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw Rig.Failure(description: "no VmRSS in /proc/\(pid)/status") }
        // Fields after the command name, which is in parentheses and may hold spaces: state is
        // field 3, utime 14 and stime 15 (proc(5)), in clock ticks.
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw Rig.Failure(description: "unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw Rig.Failure(description: "unreadable /proc/\(pid)/stat: \(stat)")
        }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ProcessFigures(residentKiB: kib, cpuMilliseconds: (user + system) * 1000 / max(ticks, 1))
    }

    /// `12.3 → 12.5 MiB`.
    static func residentChange(_ before: ProcessFigures, _ after: ProcessFigures) -> String {
        String(format: "%.1f → %.1f MiB", Double(before.residentKiB) / 1024, Double(after.residentKiB) / 1024)
    }
}
