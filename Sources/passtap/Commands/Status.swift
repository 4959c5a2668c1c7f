import ArgumentParser
import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol

/// `passtap status`: the daemon's version, uptime, readers, backends, last taps and health, with
/// an exit code a monitoring check can act on.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's version, uptime, readers and health.",
        discussion: """
            Prints the daemon's version and uptime, each backend and reader, each reader's last tap \
            (when, and what it came to), the time since the daemon's last healthy check, and whether \
            the system clock is synchronised (VAS freshness depends on it). With --json, the \
            `status` answer as the daemon gave it.

            The exit status makes it a monitoring check (Nagios, monit, a systemd timer):
              0  healthy
              1  degraded: running, but not everything is well
              2  down: no answer, or no reader backend up

            Degraded: the system clock is not synchronised, a configured backend is down, a reader \
            is unavailable, or the daemon's last healthy check is too old. Down: the daemon does \
            not answer (no socket, connection refused or closed, timed out), or no configured \
            reader backend is up. A backend is up while its stack works: pcscd answers (pcsc), \
            libnfc initialises (nfc), with or without a reader. The problems are listed under "health:".

            Other failures keep the codes of the other commands: 77 when the socket refuses the \
            caller (permission), 69 when the daemon answers with an error, 76 for an answer that \
            is not a status, 64 for bad usage.
            """)

    /// The exit status of a degraded daemon.
    static let degradedExit = ExitCode(1)
    /// The exit status of a daemon that is down or does not answer.
    static let downExit = ExitCode(2)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let status = try await CLIRunner.run(options, unreachableExit: Self.downExit) { session in
            try await session.call(.status, NoParams(), as: StatusResult.self)
        }
        if options.json {
            try Output.json(status)
        } else {
            print(status: status)
        }
        switch status.health?.state {
        case .healthy, nil: return
        case .degraded: throw Self.degradedExit
        case .down: throw Self.downExit
        }
    }

    private func print(status: StatusResult) {
        let (version, instance) = (UntrustedText.escaped(status.version), UntrustedText.escaped(status.instance))
        Swift.print("passtapd \(version) (protocol \(status.protocolVersion)), instance \(instance), up \(Output.duration(status.uptimeSeconds))")
        if let health = status.health {
            Swift.print("health: \(health.state.rawValue)")
            for problem in health.problems { Swift.print("  \(UntrustedText.escaped(problem))") }
            let check = health.lastCheckMilliseconds.map { "\(Output.duration(Double($0) / 1000)) ago" } ?? "none yet"
            let clock = health.clockSynchronised.map { $0 ? "synchronised" : "NOT synchronised" } ?? "unknown"
            Swift.print("last healthy check: \(check); system clock: \(clock)")
        }
        for backend in status.backends {
            let state = backend.up.map { $0 ? "up" : "down" } ?? "starting (not reported yet)"
            Swift.print("backend \(UntrustedText.escaped(backend.name)): \(state)" + (backend.reason.map { " (\(UntrustedText.escaped($0)))" } ?? ""))
        }
        Output.readers(status.readers)
        for tap in status.lastTaps {
            Swift.print("last tap on \(UntrustedText.escaped(tap.reader.rawValue)): \(UntrustedText.escaped(tap.time)) \(tap.outcome.rawValue)")
        }
    }
}
