import ForwardSettings
import WebSettings
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `passtap web-token`: a fresh secret in a new 0600 file, the `[[web.tokens]]` lines to paste,
/// never the secret on the terminal, and a file the daemon's config loader accepts.
extension KeyToolsTests {
    @Test func webTokenWritesAFileTheDaemonAcceptsAndPrintsTheLinesToPasteButNotTheSecret() throws {
        defer { cleanUp() }
        let made = try run(["web-token", "--name", "till-1", "--out", folder.path])
        #expect(made.status == 0, "\(made.stderr)")
        let path = folder.appendingPathComponent("till-1.token").path
        #expect(try mode(path) == 0o600)
        #expect(try mode(folder.path) == 0o700)
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        let secret = String(contents.dropLast())
        #expect(contents.hasSuffix("\n") && secret.count == 43, "\(contents.count) characters")
        #expect(secret.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        #expect(!made.stdout.contains(secret) && !made.stderr.contains(secret))
        let snippet = "  [[web.tokens]]\n  name = \"till-1\"\n  token_file = \"\(path)\"\n  roles = [\"observe\"]\n  origins = []"
        #expect(made.stdout.contains(snippet), "\(made.stdout)")

        // The printed lines, pasted under a [web] that listens, make a config passtapd accepts.
        let config = folder.appendingPathComponent("passtapd.toml").path
        let pasted = snippet.split(separator: "\n").map { $0.dropFirst(2) }.joined(separator: "\n")
        try "[web]\nlisten = \"127.0.0.1:8941\"\n\(pasted)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try run(["--check-config", config], executable: Rig.binaries.appendingPathComponent("passtapd").path)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("web on 127.0.0.1:8941 (tokens: till-1)"), "\(checked.stdout)")
        #expect(!checked.stdout.contains(secret) && !checked.stderr.contains(secret))

        // Another token: another secret.
        let other = try run(["web-token", "--name", "till-2", "--out", folder.path])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try String(contentsOfFile: folder.appendingPathComponent("till-2.token").path, encoding: .utf8) != contents)
    }

    @Test func webTokenNeverReplacesAFile() throws {
        defer { cleanUp() }
        #expect(try run(["web-token", "--name", "till-1", "--out", folder.path]).status == 0)
        let path = folder.appendingPathComponent("till-1.token").path
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let second = try run(["web-token", "--name", "till-1", "--out", folder.path])
        #expect(second.status == 73)
        #expect(second.stderr.contains("token file \(path): a file is already there"), "\(second.stderr)")
        #expect(second.stderr.contains("point token_file at it"), "\(second.stderr)")
        #expect(second.stdout.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(arguments: ["till 1", "../till", ".till", "a/b", ""])
    func webTokenRefusesANameThatIsNoPlainIdentifier(name: String) throws {
        defer { cleanUp() }
        let made = try run(["web-token", "--name", name, "--out", folder.path])
        #expect(made.status == 64, "\(made.stderr)")
        #expect(made.stderr.contains("--name: expected a name of 1 to 64 letters, digits"), "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test(.enabled(if: geteuid() == 0, "giving a file to another user needs root"))
    func webTokenOwnerGivesTheFileToThatUser() throws {
        defer { cleanUp() }
        let made = try run(["web-token", "--name", "till-1", "--out", folder.path, "--owner", "nobody:root"])
        #expect(made.status == 0, "\(made.stderr)")
        let path = folder.appendingPathComponent("till-1.token").path
        #expect(try owner(path) == (65534, 0))
        #expect(try mode(path) == 0o600)
        #expect(made.stdout.contains("(mode 0600, owner nobody:root)"), "\(made.stdout)")
        let unknown = try run(["web-token", "--name", "till-2", "--out", folder.path, "--owner", "no-such-user-passtap"])
        #expect(unknown.status == 67, "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("till-2.token").path))
    }
}
