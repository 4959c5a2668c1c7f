import WebSettings
import ForwardSettings
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PassTapCore
import Testing

/// `passtap forward secret`: a fresh `whsec_` secret in a new 0600 file, the
/// `[[forward.webhooks]]` lines to paste, never the secret on the terminal, and a file the
/// daemon's config loader accepts.
extension KeyToolsTests {
    @Test func forwardSecretWritesAWebhookSecretTheDaemonAcceptsAndPrintsTheLinesButNotTheSecret() throws {
        defer { cleanUp() }
        let path = folder.appendingPathComponent("loyalty.secret").path
        // --out is a folder, as for keygen and web-token; --name names the file and the sink.
        let made = try run(["forward", "secret", "--name", "loyalty", "--out", folder.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try mode(path) == 0o600)
        #expect(try mode(folder.path) == 0o700)
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        #expect(contents.hasSuffix("\n") && contents.hasPrefix("whsec_"), "\(contents.count) characters")
        let secret = try #require(WebhookSecret(text: String(contents.dropLast())))
        #expect(secret.key.count == 32)
        #expect(!made.stdout.contains(String(contents.dropLast())) && !made.stderr.contains(String(contents.dropLast())))
        let snippet = "  [[forward.webhooks]]\n  name = \"loyalty\"\n  url = \"https://receiver.example.com/passtap\"\n  secret_file = \"\(path)\"\n  kinds = [\"read.result\"]\n  include_message = false"
        #expect(made.stdout.contains(snippet), "\(made.stdout)")

        // The printed lines, pasted under [forward], make a config passtapd accepts.
        let config = folder.appendingPathComponent("passtapd.toml").path
        let pasted = snippet.split(separator: "\n").map { $0.dropFirst(2) }.joined(separator: "\n")
        try "[forward]\n\(pasted)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try run(["--check-config", config], executable: Rig.binaries.appendingPathComponent("passtapd").path)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("forwarding to loyalty (webhook))"), "\(checked.stdout)")

        // Never over a file; another file, another secret.
        let again = try run(["forward", "secret", "--out", path])
        #expect(again.status == 73 && again.stdout.isEmpty, "\(again.stderr)")
        #expect(again.stderr.contains("secret file \(path): a file is already there"), "\(again.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
        // The form of 0.2, --out FILE without --name, still writes that file.
        let other = folder.appendingPathComponent("other.secret").path
        let old = try run(["forward", "secret", "--out", other])
        #expect(old.status == 0 && old.stdout.contains("name = \"other\""), "\(old.stderr)")
        #expect(try String(contentsOfFile: other, encoding: .utf8) != contents)
        // A folder without --name is a usage error that says what to add.
        let bare = try run(["forward", "secret", "--out", folder.path])
        #expect(bare.status == 64 && bare.stderr.contains("is a folder: add --name NAME to write NAME.secret in it"), "\(bare.stderr)")
    }

    @Test(.enabled(if: geteuid() == 0, "giving a file to another user needs root"))
    func forwardSecretOwnerGivesTheFileToThatUserAndRefusesAnUnknownOne() throws {
        defer { cleanUp() }
        let path = folder.appendingPathComponent("loyalty.secret").path
        let made = try run(["forward", "secret", "--out", path, "--owner", "nobody:root"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try owner(path) == (65534, 0))
        #expect(made.stdout.contains("(mode 0600, owner nobody:root)"), "\(made.stdout)")
        let unknown = try run(["forward", "secret", "--out", folder.appendingPathComponent("b.secret").path, "--owner", "no-such-user-passtap"])
        #expect(unknown.status == 67, "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.secret").path))
    }
}
