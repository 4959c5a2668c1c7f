import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The offline merchant key tools of the built `passtap` (`keygen`, `key-info`, `vas-decrypt`),
/// run as a person runs them, against the published vectors of vas-protocol.md §8.
@Suite struct KeyToolsTests {
    /// §8.1: the PassKit demo pass and its public demo key.
    static let passKitPass = "pass.com.passkit.pksamples.nfcdemo"
    static let passKitKeyID = "C0B77375"
    static let passKitSPKI = "MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgADwKMBv29ByaSLiGF0FctuyB+Hs2oZ1kDIYhTVllPexNE="
    /// §8.2: the VASONLY.READ.log cryptogram.
    static let vector1 =
        "c0b77375d3f37956d84a538f28ac2a04b38ddc1a67d3647a4dd30abd736ea1cea8038388692e89db99e4746d872de782395640c536e79a75c47a9343da0af3937f06eeca7a865c4ad05a2c543ad2"
    /// §8.4: a cryptogram for the same key whose key id starts `beef` instead of `c0b7`.
    static let vector3 =
        "beef7375094afa4824addb8abf0a59f4c5b88f7b33cd803666cdf358dc8aa2ecea863673b7e92b8f39bc744233dda87e53f2ae346eb43415e7b20a50aa41e02de9f3d533f506e29b4ed31eaa9cfa"
    static let publishedMessage = "6d1UlFpnOc50iVKRaboDOK"

    /// A fresh folder for one test (it does not exist yet), removed afterwards by the caller.
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("passtap-keys-\(UUID().uuidString.prefix(8))")

    func run(_ arguments: [String], executable: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let stdout = NSTemporaryDirectory() + "passtap-keytools-\(UUID().uuidString).out"
        let stderr = stdout + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: stdout)
            try? FileManager.default.removeItem(atPath: stderr)
        }
        let program = executable ?? Rig.binaries.appendingPathComponent("passtap").path
        let status = try Spawned.start(program, arguments, stdout: stdout, stderr: stderr).wait(seconds: 60).status
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        return (status, read(stdout), read(stderr))
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not one JSON object: \(text)")
    }

    /// The value after `label: ` on the first line that starts with it.
    private func field(_ label: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("\(label): ") }.map { String($0.dropFirst(label.count + 2)) }
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// The PassKit demo key copied into the test folder with `mode` (git checks it out 0644).
    private func passKitKey(mode: Int = 0o600) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("passkit-sec1.pem").path
        try FileManager.default.copyItem(atPath: Rig.repository.appendingPathComponent("Tests/VASTests/Vectors/Keys/passkit-sec1.pem").path, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: copy)
        return copy
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: keygen and key-info

    @Test func keygenWritesA0600KeyWhoseKeyIDKeyInfoAgreesWith() throws {
        defer { cleanUp() }
        let made = try run(["keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", folder.path])
        #expect(made.status == 0, "\(made.stderr)")
        let path = folder.appendingPathComponent("pass.com.example.loyalty.pem").path
        #expect(try mode(path) == 0o600)
        #expect(try mode(folder.path) == 0o700)
        let keyID = try #require(field("key id", in: made.stdout))
        #expect(keyID.count == 8 && keyID.allSatisfy(\.isHexDigit))
        #expect(made.stdout.contains("[[vas.merchants]]\n  pass_type_id = \"pass.com.example.loyalty\"\n  keys = [\"\(path)\"]"))
        #expect(made.stdout.contains("\"nfc\": {\"message\": \"...\", \"encryptionPublicKey\": \"MDkw"))

        let info = try run(["key-info", path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(field("key id", in: info.stdout) == keyID)
        let publicKey = try #require(field("encryptionPublicKey", in: info.stdout))
        #expect(made.stdout.contains("\"encryptionPublicKey\": \"\(publicKey)\""))

        // Nothing of the private key reaches the terminal.
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN EC PRIVATE KEY-----\n"))
        for line in pem.split(separator: "\n") where !line.hasPrefix("-----") {
            #expect(!made.stdout.contains(line) && !info.stdout.contains(line))
        }
    }

    @Test func secondKeygenIntoTheSamePlaceRefusesAndKeepsTheFile() throws {
        defer { cleanUp() }
        let first = try run(["keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", folder.path])
        #expect(first.status == 0, "\(first.stderr)")
        let path = folder.appendingPathComponent("pass.com.example.loyalty.pem").path
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let second = try run(["keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", folder.path, "--format", "pkcs8"])
        #expect(second.status == 73)
        #expect(second.stderr.contains("merchant key \(path): a file is already there"))
        #expect(second.stderr.contains("give another --out"))
        #expect(second.stdout.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try mode(path) == 0o600)
    }

    /// The file's owner and group, by stat(2).
    func owner(_ path: String) throws -> (uid: UInt32, gid: UInt32) {
        var status = stat()
        try #require(stat(path, &status) == 0, "stat \(path): errno \(errno)")
        return (status.st_uid, status.st_gid)
    }

    // MARK: keygen --owner (as root, the way docs/install.md has it)

    @Test(.enabled(if: geteuid() == 0, "giving a file to another user needs root"))
    func keygenOwnerGivesTheKeyAndTheFolderItMadeToThatUser() throws {
        defer { cleanUp() }
        let made = try run(["keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", folder.path, "--owner", "nobody"])
        #expect(made.status == 0, "\(made.stderr)")
        let path = folder.appendingPathComponent("pass.com.example.loyalty.pem").path
        // nobody's primary group is nogroup (65534) on Debian.
        #expect(try owner(path) == (65534, 65534))
        #expect(try mode(path) == 0o600)
        #expect(try owner(folder.path) == (65534, 65534))
        #expect(made.stdout.contains("(mode 0600, owner nobody:65534)"))

        // Into a folder that exists, with a group: the folder keeps its owner.
        let other = try run(["keygen", "--pass-type-id", "pass.com.example.other", "--out", folder.path, "--owner", "nobody:root", "--json"])
        #expect(other.status == 0, "\(other.stderr)")
        let otherPath = folder.appendingPathComponent("pass.com.example.other.pem").path
        #expect(try owner(otherPath) == (65534, 0))
        #expect(try json(other.stdout)["owner"] as? String == "nobody:root")
        #expect(try owner(folder.path) == (65534, 65534))
    }

    @Test func keygenOwnerOfAnUnknownUserExits67AndWritesNothing() throws {
        defer { cleanUp() }
        let made = try run(["keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", folder.path, "--owner", "no-such-user-passtap"])
        #expect(made.status == 67)
        #expect(made.stderr.contains("--owner no-such-user-passtap: no user no-such-user-passtap on this system"))
        #expect(made.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.path))

        let group = try run(["keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", folder.path, "--owner", "nobody:no-such-group-passtap"])
        #expect(group.status == 67)
        #expect(group.stderr.contains("no group no-such-group-passtap"))
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    /// Run as nobody (setpriv), giving a key to root is refused: exit 77, and neither the key nor
    /// the folder keygen made is left behind.
    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root to become nobody"))
    func keygenOwnerWithoutTheRightToChownExits77AndLeavesNothing() throws {
        // /tmp: a place nobody may create its folder in.
        let tmpFolder = "/tmp/passtap-keys-nobody-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: tmpFolder) }
        let passtap = Rig.binaries.appendingPathComponent("passtap").path
        let made = try run(
            ["--reuid=nobody", "--regid=nogroup", "--clear-groups", passtap,
             "keygen", "--pass-type-id", "pass.com.example.loyalty", "--out", tmpFolder, "--owner", "root"],
            executable: "/usr/bin/setpriv")
        #expect(made.status == 77, "\(made.stderr)")
        #expect(made.stderr.contains("not permitted (only root may give a file to another user"))
        #expect(made.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: tmpFolder))
    }

    @Test func keygenJSONGivesACompressedSPKIOf59Bytes() throws {
        defer { cleanUp() }
        let made = try run(["keygen", "--pass-type-id", "pass.com.example.coffee", "--out", folder.path, "--format", "pkcs8", "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let object = try json(made.stdout)
        let path = folder.appendingPathComponent("pass.com.example.coffee.pem").path
        #expect(object["path"] as? String == path)
        #expect(object["pass_type_id"] as? String == "pass.com.example.coffee")
        let base64 = try #require(object["encryption_public_key"] as? String)
        let spki = try #require(Data(base64Encoded: base64))
        #expect(spki.count == 59)
        #expect(spki.prefix(26).map { String(format: "%02X", $0) }.joined() == "3039301306072A8648CE3D020106082A8648CE3D030107032200")
        #expect([0x02, 0x03].contains(spki[26]))
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))

        let info = try json(try run(["key-info", "--json", path]).stdout)
        #expect(info["key_id"] as? String == object["key_id"] as? String)
        #expect(info["encryption_public_key"] as? String == object["encryption_public_key"] as? String)
    }

    @Test func keyInfoOfThePassKitDemoKeyGivesThePublishedValues() throws {
        defer { cleanUp() }
        let info = try run(["key-info", try passKitKey()])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(field("key id", in: info.stdout) == Self.passKitKeyID)
        #expect(field("encryptionPublicKey", in: info.stdout) == Self.passKitSPKI)
    }

    @Test func keyInfoRefusesAKeyOthersCanReadNamingThePath() throws {
        defer { cleanUp() }
        let path = try passKitKey(mode: 0o644)
        let info = try run(["key-info", path])
        #expect(info.status == 77)
        #expect(info.stderr.contains("merchant key \(path): mode 644 makes it readable by others"))
        #expect(info.stdout.isEmpty)
    }

    @Test func keyInfoOfAMissingFileExits66() throws {
        let path = folder.appendingPathComponent("absent.pem").path
        let info = try run(["key-info", path])
        #expect(info.status == 66)
        #expect(info.stderr.contains("merchant key \(path): cannot open it"))
    }

    // MARK: vas-decrypt

    @Test func vasDecryptGivesThePublishedMessageAndTimestamp() throws {
        defer { cleanUp() }
        let key = try passKitKey()
        // Lower case, split by spaces, a tab and a line break inside one argument and across arguments.
        let spaced = stride(from: 0, to: Self.vector1.count, by: 8).map { offset in
            let start = Self.vector1.index(Self.vector1.startIndex, offsetBy: offset)
            return String(Self.vector1[start..<Self.vector1.index(start, offsetBy: min(8, Self.vector1.count - offset))])
        }
        let decrypted = try run(["vas-decrypt", "--pass-type-id", Self.passKitPass, "--key", key, spaced[0] + " " + spaced[1] + "\t" + spaced[2] + "\n" + spaced[3]] + spaced[4...])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(field("status", in: decrypted.stdout) == "success")
        #expect(field("key id", in: decrypted.stdout) == Self.passKitKeyID)
        #expect(field("variant", in: decrypted.stdout) == "A")
        #expect(field("timestamp", in: decrypted.stdout) == "2023-07-09T16:35:58.000Z (raw 710613358 s since 2001-01-01 UTC)")
        #expect(field("message", in: decrypted.stdout) == "\"\(Self.publishedMessage)\"")
        #expect(field("message hex", in: decrypted.stdout) == "366431556C46706E4F63353069564B5261626F444F4B")
    }

    @Test(arguments: ["", "9000"]) func vasDecryptTakesAWholeGetVASDataAnswer(statusWord: String) throws {
        defer { cleanUp() }
        let answer = "70 54 9F2A 00 9F27 4E " + Self.vector1 + statusWord
        let decrypted = try run(["vas-decrypt", "--json", "--pass-type-id", Self.passKitPass, "--key", try passKitKey(), answer])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        let object = try json(decrypted.stdout)
        #expect(object["status"] as? String == "success")
        #expect(object["message"] as? String == Self.publishedMessage)
        #expect(object["timestamp"] as? String == "2023-07-09T16:35:58.000Z")
        #expect(object["timestamp_raw"] as? Int == 710_613_358)
    }

    @Test func vasDecryptOfAnAnswerWithoutCryptogramSaysSo() throws {
        defer { cleanUp() }
        let decrypted = try run(["vas-decrypt", "--pass-type-id", Self.passKitPass, "--key", try passKitKey(), "7003 9F2A00 9000"])
        #expect(decrypted.status == 65)
        #expect(field("status", in: decrypted.stdout) == "malformed_response")
        #expect(decrypted.stderr.contains("passtap: malformed_response: 70 template without a 9F27 cryptogram"))
    }

    @Test func alteredKeyIDIsNoMatchingKeyUntilTheCheckIsOff() throws {
        defer { cleanUp() }
        let key = try passKitKey()
        let refused = try run(["vas-decrypt", "--pass-type-id", Self.passKitPass, "--key", key, Self.vector3])
        #expect(refused.status == 65)
        #expect(field("status", in: refused.stdout) == "no_matching_key")
        #expect(field("key id", in: refused.stdout) == "BEEF7375")
        #expect(field("message", in: refused.stdout) == nil)
        #expect(refused.stderr.contains("passtap: no_matching_key: the phone encrypted for key id BEEF7375"))
        #expect(refused.stderr.contains("given keys: \(Self.passKitKeyID)"))

        let decrypted = try run(["vas-decrypt", "--no-key-id-check", "--pass-type-id", Self.passKitPass, "--key", key, Self.vector3])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(field("status", in: decrypted.stdout) == "success")
        #expect(field("key id", in: decrypted.stdout) == "BEEF7375")
        #expect(field("timestamp", in: decrypted.stdout) == "2023-06-30T09:30:58.000Z (raw 709810258 s since 2001-01-01 UTC)")
        #expect(field("message", in: decrypted.stdout) == "\"\(Self.publishedMessage)\"")
    }

    @Test func anotherPassTypeIDDoesNotDecrypt() throws {
        defer { cleanUp() }
        let decrypted = try run(["vas-decrypt", "--json", "--pass-type-id", "pass.com.example.other", "--key", try passKitKey(), Self.vector1])
        #expect(decrypted.status == 65)
        let object = try json(decrypted.stdout)
        #expect(object["status"] as? String == "decrypt_failed")
        // Every field is written, null when absent, as on the socket.
        #expect(object["message"] is NSNull && object["timestamp"] is NSNull && object["message_hex"] is NSNull)
        #expect(object["key_id"] as? String == "C0B77375")
    }

    @Test func vasDecryptRefusesBadHexAndAnOpenKey() throws {
        defer { cleanUp() }
        let badHex = try run(["vas-decrypt", "--pass-type-id", Self.passKitPass, "--key", "/nonexistent.pem", "c0b7x3"])
        #expect(badHex.status == 64)
        #expect(badHex.stderr.contains("not hex"))

        let open = try passKitKey(mode: 0o604)
        let refused = try run(["vas-decrypt", "--pass-type-id", Self.passKitPass, "--key", open, Self.vector1])
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("merchant key \(open): mode 604 makes it readable by others"))
    }
}
