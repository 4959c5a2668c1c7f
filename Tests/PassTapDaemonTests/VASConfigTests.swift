import Foundation
import ISO7816
import PassTapCore
import PassTapDaemon
import Testing
import VAS
import Wallets
import VASSettings

/// `[vas]` and `[[vas.merchants]]`: every key read, key files loaded and checked at start, and
/// every refusal naming the file, line, key path, merchant and key file.
@Suite(.timeLimit(.minutes(1))) struct VASConfigTests {
    /// A fresh folder with a config file's worth of key files.
    final class Folder {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "passtap-vas-config-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Writes a new key in `name` with `mode` and returns it.
        @discardableResult
        func key(_ name: String, mode: mode_t = 0o600) throws -> MerchantKey {
            let key = MerchantKey.generate()
            try key.write(toFile: path + "/" + name, format: .sec1)
            chmod(path + "/" + name, mode)
            return key
        }

        var configFile: String { path + "/passtapd.toml" }
    }

    func refusal(_ text: String, in folder: Folder) throws -> ConfigurationError {
        try folder.refusal(text)
    }

    @Test func everyVASKeyIsReadAndKeyFilesAreLoadedRelativeToTheConfigFile() throws {
        let folder = try Folder()
        let current = try folder.key("loyalty.pem")
        // Readable by the daemon's own group (root's, as the tests run), which is not the socket's.
        let previous = try folder.key("loyalty-2025.pem", mode: 0o640)
        let text = """
            [socket]
            group = "daemon"
            [session]
            ppse = true
            [vas]
            enabled = true
            mode = "vas_only"
            stop_on_first_pass = true
            freshness_s = 30
            publish_stale = true
            order = "before_aids"
            [[vas.merchants]]
            pass_type_id = "pass.com.example.loyalty"
            keys = ["loyalty.pem", "\(folder.path)/loyalty-2025.pem"]
            url = "https://example.com/join"
            filter = "0100000000"
            [[vas.merchants]]
            pass_type_id = "pass.com.example.join"
            url = "https://example.com/j"
            """
        let c = try ConfigLoader.parse(text, file: folder.configFile)
        #expect(c.ppse)
        #expect(c.vas.enabled && c.vas.mode == .vasOnly && c.vas.stopOnFirstPass && c.vas.freshnessSeconds == 30)
        #expect(c.vas.publishStale && c.vas.order == .beforeAIDs)
        #expect(c.vas.passTypeIDs == ["pass.com.example.loyalty", "pass.com.example.join"])
        let loyalty = c.vas.merchants[0]
        #expect(loyalty.keyPaths == [folder.path + "/loyalty.pem", folder.path + "/loyalty-2025.pem"])
        #expect(loyalty.keyIDs == [current.keyID, previous.keyID])
        #expect(loyalty.request.isFullVAS && loyalty.request.url == "https://example.com/join")
        #expect(loyalty.request.filter == [1, 0, 0, 0, 0])
        #expect(!c.vas.merchants[1].request.isFullVAS && c.vas.merchants[1].decryptor == nil)
        // Descriptions name keys by id only.
        #expect("\(loyalty)" == "pass.com.example.loyalty (keys \(current.keyID.hex), \(previous.keyID.hex))")
    }

    @Test func theDefaultsLeaveVASOff() throws {
        let c = try ConfigLoader.parse("", file: "t.toml")
        #expect(!c.vas.enabled && c.vas.mode == .vasOrPayment && c.vas.freshnessSeconds == 60)
        #expect(!c.vas.publishStale && !c.vas.stopOnFirstPass && c.vas.order == .beforeAIDs && !c.ppse)
    }

    @Test(arguments: [0o644, 0o604, 0o620, 0o602, 0o666] as [mode_t])
    func aKeyFileOthersCanReadOrTheGroupCanWriteIsRefusedNamingMerchantKeyAndPath(mode: mode_t) throws {
        let folder = try Folder()
        try folder.key("good.pem")
        try folder.key("open.pem", mode: mode)
        let text = """
            [vas]
            enabled = true
            [[vas.merchants]]
            pass_type_id = "pass.com.example.loyalty"
            keys = ["good.pem", "open.pem"]
            """
        let error = try refusal(text, in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[1]")
        #expect(error.line == 5)
        #expect(error.problem.contains("merchant pass.com.example.loyalty"))
        #expect(error.problem.contains(folder.path + "/open.pem"))
        #expect(error.problem.contains("mode \(String(mode, radix: 8))"))
        #expect(error.problem.contains("chmod"))
    }

    @Test func aKeyTheSocketsGroupCanReadIsRefusedNamingFileLineKeyAndTheFix() throws {
        let folder = try Folder()
        try folder.key("shared.pem", mode: 0o640)
        let gid = try #require(getgrnam("daemon")).pointee.gr_gid
        #expect(chown(folder.path + "/shared.pem", 0, gid) == 0)
        let text = """
            [socket]
            group = "daemon"
            [vas]
            enabled = true
            [[vas.merchants]]
            pass_type_id = "pass.com.example.loyalty"
            keys = ["shared.pem"]
            """
        let error = try refusal(text, in: folder)
        #expect(error.file == folder.configFile && error.line == 7 && error.keyPath == "vas.merchants[0].keys[0]")
        #expect(error.problem.contains("merchant pass.com.example.loyalty: key file \(folder.path)/shared.pem: mode 640 lets group daemon (gid \(gid)) read it, and that is the socket's group"), "\(error)")
        #expect(error.problem.contains("run chmod 0600 \(folder.path)/shared.pem"))
    }

    @Test func withoutASocketGroupTheDaemonsOwnGroupOpensTheSocketSoItReadsNoKey() throws {
        let folder = try Folder()
        try folder.key("group.pem", mode: 0o640)
        let merchant = "[vas]\nenabled = true\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"group.pem\"]\n"
        // Mode 0660 and no [socket] group: the socket keeps the daemon's group, the key's group too.
        let error = try refusal(merchant, in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[0]" && error.problem.contains("and that is the socket's group"), "\(error)")
        // A socket its group cannot use has no socket group: the daemon's group may read keys.
        let c = try ConfigLoader.parse("[socket]\nmode = \"0600\"\n" + merchant, file: folder.configFile)
        #expect(c.vas.merchants.count == 1)
    }

    @Test func aKeyOwnedByAnotherUserIsRefused() throws {
        let folder = try Folder()
        try folder.key("theirs.pem")
        #expect(chown(folder.path + "/theirs.pem", 4321, 0) == 0)
        let error = try refusal("[vas]\nenabled = true\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"theirs.pem\"]\n", in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[0]" && error.line == 5)
        #expect(error.problem.contains("owned by uid 4321, neither root nor the user passtapd runs as"), "\(error)")
    }

    @Test func keyFilesThatAreMissingOrNotP256AreRefusedWithoutKeyBytes() throws {
        let folder = try Folder()
        let missing = try refusal(
            "[vas]\nenabled = true\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"nope.pem\"]\n", in: folder)
        #expect(missing.keyPath == "vas.merchants[0].keys[0]" && missing.problem.contains(folder.path + "/nope.pem"))

        let p384 = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("VASTests/Vectors/Keys/p384-sec1.pem")
        try FileManager.default.copyItem(atPath: p384.path, toPath: folder.path + "/p384.pem")
        chmod(folder.path + "/p384.pem", 0o600)
        let wrongCurve = try refusal(
            "[vas]\nenabled = true\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"p384.pem\"]\n", in: folder)
        #expect(wrongCurve.problem.contains("P-256"))
        let pem = try String(contentsOfFile: folder.path + "/p384.pem", encoding: .utf8)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
        #expect(body.allSatisfy { !wrongCurve.description.contains($0) })
    }

    @Test func theSameKeyTwiceIsRefused() throws {
        let folder = try Folder()
        try folder.key("a.pem")
        try FileManager.default.copyItem(atPath: folder.path + "/a.pem", toPath: folder.path + "/b.pem")
        let error = try refusal("[vas]\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"a.pem\", \"b.pem\"]\n", in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[1]" && error.problem.contains("same key"))
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let text: String
        let keyPath: String
        let mentions: String
        var testDescription: String { keyPath }
    }

    static let refusals: [Refusal] = [
        .init(text: "[vas]\nmode = \"vas\"\n", keyPath: "vas.mode", mentions: "vas_or_payment, vas_and_payment, vas_only"),
        .init(text: "[vas]\norder = \"first\"\n", keyPath: "vas.order", mentions: "before_aids, after_aids"),
        .init(text: "[vas]\norder = \"after_aids\"\nstop_on_first_pass = true\n", keyPath: "vas.stop_on_first_pass", mentions: "before_aids"),
        .init(text: "[vas]\nfreshness_s = -1\n", keyPath: "vas.freshness_s", mentions: "from 0 to 86400"),
        .init(text: "[vas]\nenabled = true\n", keyPath: "vas.merchants", mentions: "no [[vas.merchants]]"),
        .init(text: "[vas]\nspeed = 1\n", keyPath: "vas.speed", mentions: "unknown key"),
        .init(text: "[[vas.merchants]]\nkeys = []\n", keyPath: "vas.merchants[0].pass_type_id", mentions: "needs a pass_type_id"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass with space\"\nurl = \"https://a.b\"\n", keyPath: "vas.merchants[0].pass_type_id", mentions: "printable ASCII"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\n", keyPath: "vas.merchants[0].keys", mentions: "merchant pass.a has no keys"),
        .init(
            text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://example.com/" + String(repeating: "x", count: 45) + "\"\n",
            keyPath: "vas.merchants[0].url", mentions: "at most 64"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://a.b\"\nfilter = \"02\"\n", keyPath: "vas.merchants[0].filter", mentions: "5 bytes starting 01"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://a.b\"\nfilter = \"zz\"\n", keyPath: "vas.merchants[0].filter", mentions: "in hex"),
        .init(
            text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://a.b\"\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://a.c\"\n",
            keyPath: "vas.merchants[1].pass_type_id", mentions: "configured twice"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://a.b\"\nkey = \"x.pem\"\n", keyPath: "vas.merchants[0].key", mentions: "merchant pass.a: unknown key"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass with space\"\nurl = \"https://a.b\"\n", keyPath: "vas.merchants[0].pass_type_id", mentions: "merchant \"pass with space\""),
        // A misspelt [vas] key or merchant key is named even when a key file would also be refused.
        .init(text: "[vas]\nfreshnes_s = 30\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"missing.pem\"]\n", keyPath: "vas.freshnes_s", mentions: "unknown key"),
        .init(text: "[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"missing.pem\"]\nulr = \"https://a.b\"\n", keyPath: "vas.merchants[0].ulr", mentions: "merchant pass.a: unknown key"),
        .init(text: "[[vas.merchants]]\npass_type = \"pass.a\"\nkeys = [\"missing.pem\"]\n", keyPath: "vas.merchants[0].pass_type", mentions: "unknown key"),
        .init(text: "[sesion]\naids = []\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"missing.pem\"]\n", keyPath: "sesion", mentions: "unknown key"),
    ]

    @Test(arguments: refusals)
    func badVASSettingsAreRefusedNamingKeyAndExpectation(_ refusal: Refusal) throws {
        let folder = try Folder()
        let error = try self.refusal(refusal.text, in: folder)
        #expect(error.file == folder.configFile)
        #expect(error.keyPath == refusal.keyPath, "\(error)")
        #expect(error.description.contains(refusal.mentions), "\(error)")
        #expect(error.line != nil, "\(error)")
    }
}
