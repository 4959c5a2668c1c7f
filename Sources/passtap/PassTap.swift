import ArgumentParser
import PassTapCore

/// `passtap`: the command-line client of `passtapd`, and offline Apple VAS merchant key tools.
@main
struct PassTap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passtap",
        abstract: "Talk to passtapd (reader status, live events, APDUs to a card) and manage Apple VAS merchant keys.",
        discussion: """
            Connects to passtapd's Unix socket (--socket, else $PASSTAP_SOCKET, else \
            /run/passtap/passtapd.sock). Exit codes follow sysexits: 64 usage, 69 daemon not \
            running, 75 timeout, 76 unexpected answer, 77 permission denied. keygen, key-info, \
            vas-decrypt, web-token and forward secret work offline, without the daemon; their exit codes are in their --help.
            """,
        version: PassTapVersion.string,
        subcommands: [
            Status.self, Readers.self, Watch.self, APDU.self, Shell.self, PassRead.self,
            Forward.self, Keygen.self, KeyInfo.self, VASDecrypt.self, WebToken.self,
        ]
    )
}
