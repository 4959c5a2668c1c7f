import Foundation
import Testing
import VAS

#if canImport(Glibc)
import Glibc
import Wallets
#endif

/// A reload whose `[socket] group` differs from the running socket's (restart-only) on the real
/// passtapd: a key file the running socket's group could read is refused with `config.rejected`
/// naming the reason, while `--check-config`, which judges the file alone, accepts it
/// (docs/operations.md, "Start, reload, stop").
struct ReloadKeyPolicyScenarioTests {
    static let coffee = PCSCScenarioTests.VASScenarioTests.coffee

    /// No readers; VAS with the coffee merchant, whose key is `coffee.pem` in the rig's folder.
    static let config = "[pcsc]\nenabled = false\n[vas]\nenabled = true\n[[vas.merchants]]\npass_type_id = \"\(coffee)\"\nkeys = [\"{rig}/coffee.pem\"]\n"

    @Test func aReloadThatGivesTheSocketAnotherGroupRefusesAKeyTheRunningSocketsGroupCanRead() throws {
        // Started without [socket] group: the socket has passtapd's own group, so no key may be 0640.
        let rig = try Rig(config: Self.config, pcscd: false) { folder in
            try MerchantKey.generate().write(toFile: folder.appendingPathComponent("coffee.pem").path, format: .sec1)
        }
        defer { rig.stop() }
        let ledger = try EventLedger(rig: rig)
        let key = rig.directory.appendingPathComponent("coffee.pem").path
        #expect(chmod(key, 0o640) == 0)

        // group = "nogroup" takes effect at restart only; until then the socket's group, passtapd's
        // own, could read the key.
        try rig.reload(config: "group = \"nogroup\"\n" + Self.config)
        let rejected = try ledger.next("config.rejected")
        #expect(rejected["file"] as? String == rig.configFile)
        #expect(rejected["key"] as? String == "vas.merchants[0].keys[0]")
        let problem = try #require(rejected["problem"] as? String)
        #expect(problem.contains("key file \(key): mode 640 lets group"), "\(problem)")
        #expect(problem.contains("and that is the group of the socket passtapd listens on now ([socket] group and mode change only at restart)"), "\(problem)")
        #expect(rig.daemonLog.contains("config.key=vas.merchants[0].keys[0]"))

        // --check-config judges the file as the next start would: the key suits group nogroup's socket.
        let check = try Spawned.finish(Rig.binaries.appendingPathComponent("passtapd").path, ["--check-config", rig.configFile])
        #expect(check.status == 0, "\(check.output)")

        // The key back to 0600: the same file reloads, the group waiting for a restart.
        #expect(chmod(key, 0o600) == 0)
        try rig.reload(config: "group = \"nogroup\"\n" + Self.config)
        let reloaded = try ledger.next("config.reloaded")
        #expect(reloaded["restart_required"] as? [String] == ["socket.group"])
        #expect(ledger.problems.isEmpty, "\(ledger.problems)")
    }
}
