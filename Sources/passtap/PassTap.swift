import WebSettings
import ArgumentParser
import PassTapCore

/// `passtap`: the command-line client of `passtapd`, and offline tools for its keys, web tokens
/// and webhook secrets (``PassTapHelp``: its help and exit codes).
@main
struct PassTap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passtap",
        abstract: PassTapHelp.abstract,
        discussion: PassTapHelp.discussion,
        version: PassTapVersion.string,
        subcommands: [
            Status.self, Readers.self, Watch.self, APDU.self, Shell.self, PassRead.self,
            Forward.self, Keygen.self, KeyInfo.self, VASDecrypt.self, WebToken.self, Keyboard.self,
        ]
    )
}
