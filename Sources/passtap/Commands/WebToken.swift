import WebSettings
import ArgumentParser
import Foundation
import PassTapCore
import VAS
import Wallets

/// `passtap web-token --name N --out DIR [--owner USER[:GROUP]]`: a new secret for one
/// `[[web.tokens]]` entry of passtapd's web listener, offline.
///
/// Writes `DIR/N.token` (mode 0600, never over an existing file; DIR is created with mode 0700
/// when missing) holding one line: 32 bytes from the system's secure random generator in base64url
/// (43 characters, ``WebTokenFile/generate()``). Prints the `[[web.tokens]]` lines to paste into
/// passtapd.toml, never the secret: it stays in the file, which the POS's configuration copies
/// (`sudo cat DIR/N.token`), so it reaches no terminal scrollback or log.
struct WebToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-token",
        abstract: "Make a new secret for a [[web.tokens]] entry of passtapd's web listener, offline.",
        discussion: """
            Writes DIR/<name>.token with mode 0600 (DIR is created with mode 0700 if missing): one \
            line with 32 random bytes in base64url, from the system's secure random generator. \
            Prints the [[web.tokens]] lines for passtapd.toml (roles = ["observe"] and origins = []: \
            widen them by hand), never the secret; copy it from the file into the POS's \
            configuration. An existing file is never replaced: to change a token's secret, write \
            a new file and point token_file at it. --owner gives the file (and a folder web-token \
            created) to that user and group, e.g. --owner passtapd for the packaged daemon; the \
            mode stays 0600. Exit codes: 0 written, 64 usage (bad --name or --owner), 67 no such \
            user or group, 73 the file exists or cannot be created, 77 not permitted to give it \
            away (only root may; nothing is left behind).
            """)

    @Option(help: ArgumentHelp("The token's name in passtapd.toml, logs and metrics, e.g. till-1; also names the file.", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("Folder for the token file (created with mode 0700 if missing).", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("Give the token file to this user (and group; default: the user's primary group). Needs root.", valueName: "user[:group]"))
    var owner: String?

    func validate() throws {
        guard Configuration.WebToken.isValidName(name) else {
            throw ValidationError("--name: expected \(Configuration.WebToken.nameExpectation), found \"\(name)\"")
        }
    }

    func run() throws {
        let (path, fileOwner) = try KeyTools.writeNewFile(
            named: "\(name).token", in: out, owner: owner, kind: "token file",
            ifItExists: "to change the token's secret write a new file (another --out or --name) and point token_file at it"
        ) { path throws(MerchantKeyError) in try WebTokenFile.writeNew(path: path) }
        let ownership = fileOwner.map { ", owner \($0)" } ?? ""
        print("""
            Wrote a new web token secret for \(name) to \(path) (mode 0600\(ownership)).
            Keep it secret: passtapd reads it as it reads merchant keys (0600 root if passtapd runs as root, else chown root:passtapd, chmod 0640; never the socket's group). Copy it into the POS's configuration from the file (sudo cat \(path)); it is never printed.

            passtapd.toml (roles: add "read" for pass messages and vas.read; origins: the POS page's exact scheme://host[:port], or none for a program that sends no Origin):
              [[web.tokens]]
              name = \(KeyTools.tomlString(name))
              token_file = \(KeyTools.tomlString(path))
              roles = ["observe"]
              origins = []
            """)
    }
}
