import Foundation
import PassTapCore
import PassTapDaemon
import SmartTap
import Testing
import VAS
import Wallets
import SmartTapSettings

/// `[smarttap]`: every key read, the collector key loaded and checked as VAS keys are, every
/// refusal naming the file, line, key and what was expected, and reload rotating the key.
@Suite(.timeLimit(.minutes(1))) struct SmartTapConfigTests {
    typealias Folder = VASConfigTests.Folder

    static func section(enabled: Bool = true, collector: Int = 20_180_608, version: Int = 1, key: String = "smarttap.pem") -> String {
        """
        [smarttap]
        enabled = \(enabled)
        collector_id = \(collector)
        key_version = \(version)
        key = "\(key)"
        """
    }

    /// The public key PEM of `key` as a collector holding it gives it.
    static func publicKeyPEM(of key: MerchantKey) throws -> String {
        try SmartTapCollector(collectorID: 1, keyVersion: 1, keyFileContents: Array(key.privateKeyPEM(format: .sec1).utf8)).publicKeyPEM
    }

    func refusal(_ text: String, in folder: Folder) throws -> ConfigurationError {
        try folder.refusal(text)
    }

    @Test func everyKeyIsReadAndTheKeyIsLoadedRelativeToTheConfigFile() throws {
        let folder = try Folder()
        let key = try folder.key("smarttap.pem")
        let c = try ConfigLoader.parse(Self.section(), file: folder.configFile)
        let collector = try #require(c.smartTap.activeCollector)
        #expect(c.smartTap.enabled && collector.collectorID == 20_180_608 && collector.keyVersion == 1)
        #expect(c.smartTap.keyPath == folder.path + "/smarttap.pem")
        #expect(collector.publicKeyPEM == (try Self.publicKeyPEM(of: key)))
        // The description names the collector, never the key.
        #expect("\(c.smartTap)" == "Smart Tap on: collector 20180608, key version 1")
        #expect(!"\(collector)".contains("BEGIN"))
    }

    @Test func theDefaultsLeaveSmartTapOff() throws {
        let c = try ConfigLoader.parse("", file: "t.toml")
        #expect(!c.smartTap.enabled && c.smartTap.collector == nil && c.smartTap.activeCollector == nil)
    }

    @Test func aCollectorSwitchedOffIsStillCheckedButNotUsed() throws {
        let folder = try Folder()
        try folder.key("smarttap.pem")
        let c = try ConfigLoader.parse(Self.section(enabled: false), file: folder.configFile)
        #expect(c.smartTap.collector != nil && c.smartTap.activeCollector == nil)
        try folder.key("open.pem", mode: 0o644)
        let error = try refusal(Self.section(enabled: false, key: "open.pem"), in: folder)
        #expect(error.keyPath == "smarttap.key")
    }

    @Test(arguments: [0o644, 0o604, 0o620, 0o666] as [mode_t])
    func aKeyFileOthersCanReadOrTheGroupCanWriteIsRefusedNamingFileLineKeyAndPath(mode: mode_t) throws {
        let folder = try Folder()
        try folder.key("open.pem", mode: mode)
        let error = try refusal(Self.section(key: "open.pem"), in: folder)
        #expect(error.file == folder.configFile && error.line == 5 && error.keyPath == "smarttap.key")
        #expect(error.problem.contains("collector 20180608: key file \(folder.path)/open.pem"), "\(error)")
        #expect(error.problem.contains("mode \(String(mode, radix: 8))") && error.problem.contains("chmod"))
    }

    @Test func aKeyTheSocketsGroupCanReadIsRefused() throws {
        let folder = try Folder()
        try folder.key("shared.pem", mode: 0o640)
        let gid = try #require(getgrnam("daemon")).pointee.gr_gid
        #expect(chown(folder.path + "/shared.pem", 0, gid) == 0)
        let error = try refusal("[socket]\ngroup = \"daemon\"\n" + Self.section(key: "shared.pem"), in: folder)
        #expect(error.keyPath == "smarttap.key" && error.line == 7)
        #expect(error.problem.contains("that is the socket's group"), "\(error)")
    }

    @Test func aMissingOrNonP256KeyIsRefusedWithoutKeyBytes() throws {
        let folder = try Folder()
        let missing = try refusal(Self.section(key: "nowhere.pem"), in: folder)
        #expect(missing.keyPath == "smarttap.key" && missing.problem.contains(folder.path + "/nowhere.pem"))
        let rsa = folder.path + "/garbage.pem"
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: rsa))
        chmod(rsa, 0o600)
        let garbage = try refusal(Self.section(key: "garbage.pem"), in: folder)
        #expect(garbage.keyPath == "smarttap.key" && garbage.problem.contains(rsa))
    }

    struct Refusal: Sendable, CustomStringConvertible {
        let text: String
        let keyPath: String
        let expectation: String
        var description: String { keyPath + ": " + expectation }
    }

    static let refusals: [Refusal] = [
        Refusal(text: "[smarttap]\nenabled = true", keyPath: "smarttap.collector_id", expectation: "no collector is configured"),
        Refusal(text: "[smarttap]\ncollector_id = 1\nkey = \"smarttap.pem\"", keyPath: "smarttap.key_version", expectation: "expected the key version"),
        Refusal(text: "[smarttap]\nkey_version = 1\nkey = \"smarttap.pem\"", keyPath: "smarttap.collector_id", expectation: "expected the collector id"),
        Refusal(text: "[smarttap]\ncollector_id = 1\nkey_version = 1", keyPath: "smarttap.key", expectation: "expected the path"),
        Refusal(text: "[smarttap]\ncollector_id = 0\nkey_version = 1\nkey = \"smarttap.pem\"", keyPath: "smarttap.collector_id", expectation: "4294967295"),
        Refusal(text: "[smarttap]\ncollector_id = 4294967296\nkey_version = 1\nkey = \"smarttap.pem\"", keyPath: "smarttap.collector_id", expectation: "4294967295"),
        Refusal(text: "[smarttap]\ncollector_id = 1\nkey_version = -1\nkey = \"smarttap.pem\"", keyPath: "smarttap.key_version", expectation: "4294967295"),
        Refusal(text: "[smarttap]\ncollector_id = \"1\"\nkey_version = 1\nkey = \"smarttap.pem\"", keyPath: "smarttap.collector_id", expectation: "integer"),
        Refusal(text: "[smarttap]\ncolector_id = 1\nkey_version = 1\nkey = \"nowhere.pem\"", keyPath: "smarttap.colector_id", expectation: "collector_id"),
        Refusal(text: "[smarttap]\nenabled = \"yes\"", keyPath: "smarttap.enabled", expectation: "true or false"),
        Refusal(text: "smarttap = 1", keyPath: "smarttap", expectation: "expected a table [smarttap]"),
    ]

    @Test(arguments: refusals)
    func badSmartTapSettingsAreRefusedNamingKeyAndExpectation(_ refusal: Refusal) throws {
        let folder = try Folder()
        try folder.key("smarttap.pem")
        let error = try self.refusal(refusal.text, in: folder)
        #expect(error.keyPath == refusal.keyPath, "\(error)")
        #expect(error.problem.contains(refusal.expectation), "\(error)")
        #expect(error.file == folder.configFile && error.line != nil)
    }

    // MARK: Reload

    @Test func aNewKeyVersionAndKeyRotateOnReload() throws {
        let folder = try Folder()
        try folder.key("smarttap.pem")
        let rotated = try folder.key("smarttap-v2.pem")
        let old = try ConfigLoader.parse(Self.section(), file: folder.configFile)
        let new = try ConfigLoader.parse(Self.section(version: 2, key: "smarttap-v2.pem"), file: folder.configFile)
        let plan = ReloadPlan(old: old, new: new)
        #expect(plan.restartRequired.isEmpty)
        #expect(plan.changed == ["smarttap.key_version", "smarttap.key"])
        let collector = try #require(plan.effective.smartTap.activeCollector)
        #expect(collector.keyVersion == 2)
        #expect(collector.publicKeyPEM == (try Self.publicKeyPEM(of: rotated)))
    }

    @Test func theSameFileIsNoChangeAndANewKeyInItIs() throws {
        let folder = try Folder()
        try folder.key("smarttap.pem")
        let old = try ConfigLoader.parse(Self.section(), file: folder.configFile)
        #expect(ReloadPlan(old: old, new: try ConfigLoader.parse(Self.section(), file: folder.configFile)).changed.isEmpty)
        try FileManager.default.removeItem(atPath: folder.path + "/smarttap.pem")
        try folder.key("smarttap.pem")
        #expect(ReloadPlan(old: old, new: try ConfigLoader.parse(Self.section(), file: folder.configFile)).changed == ["smarttap.key"])
    }

    @Test func switchingSmartTapOnAndOffReloads() throws {
        let folder = try Folder()
        try folder.key("smarttap.pem")
        let off = try ConfigLoader.parse("", file: folder.configFile)
        let on = try ConfigLoader.parse(Self.section(), file: folder.configFile)
        #expect(ReloadPlan(old: off, new: on).changed == ["smarttap.enabled", "smarttap.collector_id", "smarttap.key_version", "smarttap.key"])
        #expect(ReloadPlan(old: on, new: off).effective.smartTap.activeCollector == nil)
    }
}
