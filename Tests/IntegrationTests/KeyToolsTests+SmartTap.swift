import Foundation
import Testing

/// `passtap keygen --smarttap`: a new 0600 collector key, what Google's console asks for (the
/// public key PEM and its version), the `[smarttap]` lines that passtapd accepts, and never the
/// private key on the terminal.
extension KeyToolsTests {
    @Test func keygenSmartTapWritesA0600KeyAndPrintsThePublicKeyVersionAndConfigLines() throws {
        defer { cleanUp() }
        let made = try run(["keygen", "--smarttap", "--collector-id", "20180608", "--key-version", "1", "--out", folder.path])
        #expect(made.status == 0, "\(made.stderr)")
        let path = folder.appendingPathComponent("smarttap-20180608-v1.pem").path
        #expect(try mode(path) == 0o600)
        #expect(made.stdout.contains("register this public key with key version 1:\n-----BEGIN PUBLIC KEY-----\n"), "\(made.stdout)")
        #expect(made.stdout.contains("-----END PUBLIC KEY-----\n"))
        let snippet = "  [smarttap]\n  enabled = true\n  collector_id = 20180608\n  key_version = 1\n  key = \"\(path)\""
        #expect(made.stdout.contains(snippet), "\(made.stdout)")

        // Nothing of the private key reaches the terminal: not its PEM lines, not its scalar
        // (SEC1: 30 77 02 01 01 04 20, then the 32 bytes) in hex or Base64.
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        let der = try #require(Data(base64Encoded: body.joined()))
        let scalar = Data(der[7..<39])
        let output = made.stdout + made.stderr
        for line in body where line.count == 64 { #expect(!output.contains(line)) }
        #expect(!output.contains(scalar.map { String(format: "%02x", $0) }.joined()))
        #expect(!output.uppercased().contains(scalar.map { String(format: "%02X", $0) }.joined()))
        #expect(!output.contains(scalar.base64EncodedString().dropLast(4)))
        #expect(!output.contains("PRIVATE KEY"))

        // The printed lines make a config passtapd accepts, with Smart Tap on.
        let config = folder.appendingPathComponent("passtapd.toml").path
        let pasted = snippet.split(separator: "\n").map { $0.dropFirst(2) }.joined(separator: "\n")
        try "\(pasted)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try run(["--check-config", config], executable: Rig.binaries.appendingPathComponent("passtapd").path)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("Smart Tap on: collector 20180608, key version 1"), "\(checked.stdout)")
    }

    @Test func keygenSmartTapJSONGivesThePublicKeyAndNeverOverwrites() throws {
        defer { cleanUp() }
        let arguments = ["keygen", "--smarttap", "--collector-id", "7", "--key-version", "3", "--out", folder.path, "--json"]
        let made = try run(arguments)
        #expect(made.status == 0, "\(made.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let path = folder.appendingPathComponent("smarttap-7-v3.pem").path
        #expect(object["path"] as? String == path && object["collector_id"] as? Int == 7 && object["key_version"] as? Int == 3)
        #expect((object["public_key_pem"] as? String)?.hasPrefix("-----BEGIN PUBLIC KEY-----\n") == true)
        #expect(object["format"] as? String == "sec1")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let again = try run(arguments)
        #expect(again.status == 73 && again.stdout.isEmpty)
        #expect(again.stderr.contains("collector key \(path): a file is already there"), "\(again.stderr)")
        #expect(again.stderr.contains("another --key-version"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(arguments: [
        (["keygen", "--smarttap", "--key-version", "1"], "--collector-id"),
        (["keygen", "--smarttap", "--collector-id", "1"], "--key-version"),
        (["keygen", "--smarttap", "--collector-id", "0", "--key-version", "1"], "--collector-id"),
        (["keygen", "--smarttap", "--collector-id", "1", "--key-version", "1", "--pass-type-id", "pass.com.example.loyalty"], "--pass-type-id"),
        (["keygen", "--collector-id", "1", "--key-version", "1"], "--smarttap"),
        (["keygen"], "--pass-type-id"),
    ])
    func keygenSmartTapUsageErrorsNameTheOptionAndWriteNothing(arguments: [String], option: String) throws {
        defer { cleanUp() }
        let made = try run(arguments + ["--out", folder.path])
        #expect(made.status == 64, "\(made.stderr)")
        #expect(made.stderr.contains(option), "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
