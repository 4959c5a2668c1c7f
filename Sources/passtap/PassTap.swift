import ArgumentParser
import PassTapCore

/// `passtap`: the command-line client of `passtapd`.
@main
struct PassTap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passtap",
        abstract: "Talk to passtapd: reader status, live events, APDUs to a card.",
        discussion: """
            Connects to passtapd's Unix socket (--socket, else $PASSTAP_SOCKET, else \
            /run/passtap/passtapd.sock). Exit codes follow sysexits: 64 usage, 69 daemon not \
            running, 75 timeout, 76 unexpected answer, 77 permission denied.
            """,
        version: PassTapVersion.string,
        subcommands: [Status.self, Readers.self, Watch.self, APDU.self, Shell.self, VASRead.self]
    )
}
