import ForwardSettings
import WebSettings
import ArgumentParser
import Foundation
import PassTapCore
import VAS
import Wallets

/// `passtap forward secret --name NAME --out DIR [--owner USER[:GROUP]]`: a new Standard
/// Webhooks signing secret for the `[[forward.webhooks]]` sink NAME, offline. `--out` is a folder,
/// as for `keygen` and `web-token`; the form of 0.2, `--out FILE` without `--name`, still works.
///
/// Writes DIR/NAME.secret (mode 0600, never over an existing file; its folder is created with mode 0700 when
/// missing) holding one line: `whsec_` and the base64 of 32 bytes from the system's secure random
/// generator (``ForwardSecretFile/generateWebhookSecret()``). Prints the `[[forward.webhooks]]`
/// lines to paste into passtapd.toml, never the secret, as `passtap web-token` does: the receiver
/// gets it from the file (`sudo cat FILE`), so it reaches no terminal scrollback or log.
struct ForwardSecret: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret",
        abstract: "Make a new signing secret for a [[forward.webhooks]] sink, offline.",
        discussion: """
            Writes DIR/NAME.secret with mode 0600 (DIR is created with mode 0700 if missing): one line, \
            whsec_ and the base64 of 32 random bytes from the system's secure random generator, \
            the Standard Webhooks secret format. Prints the [[forward.webhooks]] lines for \
            passtapd.toml, never the secret; the receiver verifies signatures with the same line, \
            copied from the file. An existing file is never replaced: to change a secret, write a \
            new file and point secret_file at it. --owner gives the file (and a folder it created) \
            to that user and group, e.g. --owner passtapd for the packaged daemon; the mode stays \
            0600. --out is a folder, as for keygen and web-token; without --name, --out is still \
            read as the file itself (the form of passtap 0.2). Exit codes: 0 written, 64 usage \
            (bad --name, --out or --owner), 67 no such user or group, 73 the file exists or cannot \
            be created, 77 not permitted to give it away (only root may; nothing is left behind).
            """)

    @Option(help: ArgumentHelp("The sink's name in passtapd.toml, e.g. loyalty; also names the file, NAME.secret.", valueName: "name"))
    var name: String?

    @Option(
        help: ArgumentHelp(
            "Folder for the secret file (created with mode 0700 if missing), e.g. /etc/passtap/forward; without --name, the file itself.",
            valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("Give the file to this user (and group; default: the user's primary group). Needs root.", valueName: "user[:group]"))
    var owner: String?

    func validate() throws {
        guard !out.isEmpty else { throw ValidationError("--out: expected a folder, found \"\"") }
        if let name {
            guard Configuration.WebToken.isValidName(name) else {
                throw ValidationError("--name: expected \(Configuration.WebToken.nameExpectation), found \"\(name)\"")
            }
            return
        }
        // The form of 0.2: --out is the file.
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), isFolder.boolValue {
            throw ValidationError("--out \(out) is a folder: add --name NAME to write NAME.secret in it")
        }
        guard !out.hasSuffix("/"), ![".", ".."].contains(URL(fileURLWithPath: out).lastPathComponent) else {
            throw ValidationError("--out \(out) is a folder: add --name NAME to write NAME.secret in it")
        }
    }

    func run() throws {
        // With --name, --out is the folder; without it (the form of 0.2), the file.
        let file = name.map { URL(fileURLWithPath: out).appendingPathComponent("\($0).secret") } ?? URL(fileURLWithPath: out)
        let (path, fileOwner) = try KeyTools.writeNewFile(
            named: file.lastPathComponent, in: file.standardizedFileURL.deletingLastPathComponent().path, owner: owner, kind: "secret file",
            ifItExists: "to change the secret write a new file (another --name or --out) and point secret_file at it"
        ) { path throws(MerchantKeyError) in try ForwardSecretFile.writeNewWebhookSecret(path: path) }
        let ownership = fileOwner.map { ", owner \($0)" } ?? ""
        let stem = file.deletingPathExtension().lastPathComponent
        let name = name ?? (Configuration.WebToken.isValidName(stem) ? stem : "loyalty")
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
