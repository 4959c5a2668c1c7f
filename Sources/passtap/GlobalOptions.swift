import ArgumentParser
import Foundation

/// Options every `passtap` subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "passtapd's socket (default: $PASSTAP_SOCKET unless empty, else /run/passtap/passtapd.sock).")
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON instead of readable text (one object per line; control and bidirectional characters inside strings written as JSON escapes).")
    var json = false

    @Option(name: .long, help: "Seconds to wait for an answer.")
    var timeout: Double = 5

    @Option(
        name: .customLong("daemon-user"),
        help: ArgumentHelp(
            "Also trust a socket served by this user (name or uid; default: $PASSTAP_DAEMON_USER). Root and user passtapd are always trusted.",
            valueName: "user"))
    var daemonUserOption: String?

    /// The extra user a socket may be served by, after the option and the environment.
    var daemonUser: String? {
        daemonUserOption ?? ProcessInfo.processInfo.environment["PASSTAP_DAEMON_USER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The socket path to use, after the option and the environment; an empty `PASSTAP_SOCKET`
    /// counts as unset, as an empty `PASSTAP_DAEMON_USER` does.
    var socketPath: String {
        socket ?? ProcessInfo.processInfo.environment["PASSTAP_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/passtap/passtapd.sock"
    }

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
        if socket?.isEmpty == true {
            throw ValidationError("--socket is empty: give the socket's path, or leave --socket out for $PASSTAP_SOCKET or /run/passtap/passtapd.sock")
        }
    }
}
