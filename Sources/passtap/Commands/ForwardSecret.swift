import ArgumentParser
import Foundation
import PassTapCore
import VAS

/// `passtap forward secret --out FILE [--owner USER[:GROUP]]`: a new Standard Webhooks signing
/// secret for one `[[forward.webhooks]]` sink, offline.
///
/// Writes FILE (mode 0600, never over an existing file; its folder is created with mode 0700 when
/// missing) holding one line: `whsec_` and the base64 of 32 bytes from the system's secure random
/// generator (``ForwardSecretFile/generateWebhookSecret()``). Prints the `[[forward.webhooks]]`
/// lines to paste into passtapd.toml, never the secret, as `passtap web-token` does: the receiver
/// gets it from the file (`sudo cat FILE`), so it reaches no terminal scrollback or log.
struct ForwardSecret: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret",
        abstract: "Make a new signing secret for a [[forward.webhooks]] sink, offline.",
        discussion: """
            Writes FILE with mode 0600 (its folder is created with mode 0700 if missing): one line, \
            whsec_ and the base64 of 32 random bytes from the system's secure random generator, \
            the Standard Webhooks secret format. Prints the [[forward.webhooks]] lines for \
            passtapd.toml, never the secret; the receiver verifies signatures with the same line, \
            copied from the file. An existing file is never replaced: to change a secret, write a \
            new file and point secret_file at it. --owner gives the file (and a folder it created) \
            to that user and group, e.g. --owner passtapd for the packaged daemon; the mode stays \
            0600. Exit codes: 0 written, 64 usage (bad --out or --owner), 67 no such user or group, \
            73 the file exists or cannot be created, 77 not permitted to give it away (only root \
            may; nothing is left behind).
            """)

    @Option(help: ArgumentHelp("The secret file to write, e.g. /etc/passtap/forward/loyalty.secret.", valueName: "file"))
    var out: String

    @Option(help: ArgumentHelp("Give the file to this user (and group; default: the user's primary group). Needs root.", valueName: "user[:group]"))
    var owner: String?

    func validate() throws {
        guard !out.isEmpty, !out.hasSuffix("/"), ![".", ".."].contains(URL(fileURLWithPath: out).lastPathComponent) else {
            throw ValidationError("--out: expected the path of a file to write, found \"\(out)\"")
        }
    }

    func run() throws {
        let file = URL(fileURLWithPath: out).standardizedFileURL
        let (path, fileOwner) = try KeyTools.writeNewFile(
            named: file.lastPathComponent, in: file.deletingLastPathComponent().path, owner: owner, kind: "secret file",
            ifItExists: "to change the secret write a new file and point secret_file at it"
        ) { path throws(MerchantKeyError) in try ForwardSecretFile.writeNewWebhookSecret(path: path) }
        let ownership = fileOwner.map { ", owner \($0)" } ?? ""
        let stem = file.deletingPathExtension().lastPathComponent
        let name = stem.utf8.count <= 64 && stem.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) && !stem.isEmpty ? stem : "loyalty"
        print("""
            Wrote a new webhook signing secret to \(path) (mode 0600\(ownership)).
            Keep it secret: passtapd reads it as it reads merchant keys (0600 root if passtapd runs as root, else chown root:passtapd, chmod 0640; never the socket's group). Give the receiver the same line from the file (sudo cat \(path)); it is never printed.

            passtapd.toml (url: the receiver's; kinds and include_message: what it may get):
              [[forward.webhooks]]
              name = \(KeyTools.tomlString(name))
              url = "https://receiver.example.com/passtap"
              secret_file = \(KeyTools.tomlString(path))
              kinds = ["read.result"]
              include_message = false
            """)
    }
}
