import Foundation
import PassTapCore
import PassTapDaemon
import Testing

#if canImport(Glibc)
import Glibc
import VASSettings
#endif

/// On a reload, a key file must suit the socket passtapd listens on (its group and mode change only
/// at restart) as well as the file's `[socket]`; `--check-config` judges the file alone
/// (docs/operations.md, "Start, reload, stop"). As the tests run, the daemon's own group is root's
/// (gid 0): a `0640` key of group root is readable by the daemon's group, and by the socket's when
/// that is root's too.
@Suite(.timeLimit(.minutes(1)), .enabled(if: getegid() == 0, "the key files' group is the daemon's own: root's as these run"))
struct ReloadKeyPolicyTests {
    static let merchant = "[vas]\nenabled = true\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nkeys = [\"group.pem\"]\n"

    /// The `[socket]` of a running daemon with these settings.
    static func socket(group: String? = nil, mode: UInt16 = 0o660) -> Configuration.Socket {
        var socket = Configuration.Socket()
        socket.group = group
        socket.mode = mode
        return socket
    }

    /// The refusal of `text` on a reload of a daemon listening with `listening`.
    static func refusal(_ text: String, listening: Configuration.Socket, in folder: VASConfigTests.Folder) throws -> ConfigurationError {
        try folder.refusal(text, listening: listening)
    }

    @Test func aReloadThatGivesTheSocketAnotherGroupStillRefusesAKeyTheListeningSocketsGroupCanRead() throws {
        let folder = try VASConfigTests.Folder()
        try folder.key("group.pem", mode: 0o640)
        let text = "[socket]\ngroup = \"daemon\"\n" + Self.merchant
        // The file alone (as --check-config and the next start judge it): the socket's group is
        // daemon, so the daemon's own group may read the key.
        #expect(try ConfigLoader.parse(text, file: folder.configFile).vas.merchants.count == 1)
        // The running socket still has the daemon's group (no [socket] group at start): refused.
        let error = try Self.refusal(text, listening: Self.socket(), in: folder)
        #expect(error.file == folder.configFile && error.line == 7 && error.keyPath == "vas.merchants[0].keys[0]", "\(error)")
        #expect(
            error.problem.contains(
                "key file \(folder.path)/group.pem: mode 640 lets group root (gid 0) read it, and that is the group of the socket passtapd listens on now ([socket] group and mode change only at restart)"),
            "\(error)")
        #expect(error.problem.contains("run chmod 0600 \(folder.path)/group.pem, or restart passtapd"), "\(error)")
        // A key of the file's new socket group is refused too, as at start.
        let gid = try #require(getgrnam("daemon")).pointee.gr_gid
        #expect(chown(folder.path + "/group.pem", 0, gid) == 0)
        let theirs = try Self.refusal(text, listening: Self.socket(), in: folder)
        #expect(theirs.problem.contains("read it, and that is the socket's group"), "\(theirs)")
    }

    @Test func aReloadThatOpensTheSocketToItsGroupRefusesAKeyThatGroupCanRead() throws {
        let folder = try VASConfigTests.Folder()
        try folder.key("group.pem", mode: 0o640)
        // Started with a socket its group cannot open: the daemon's group may read keys.
        let started = "[socket]\nmode = \"0600\"\n" + Self.merchant
        #expect(try ConfigLoader.parse(started, file: folder.configFile, listening: Self.socket(mode: 0o600)).vas.merchants.count == 1)
        // Mode 0660 (restart-only) would give the daemon's group the socket: refused now already.
        let error = try Self.refusal(Self.merchant, listening: Self.socket(mode: 0o600), in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[0]" && error.problem.contains("and that is the socket's group"), "\(error)")
    }

    @Test func aReloadThatClosesTheSocketToItsGroupStillRefusesAKeyTheListeningSocketsGroupCanRead() throws {
        let folder = try VASConfigTests.Folder()
        try folder.key("group.pem", mode: 0o640)
        let text = "[socket]\nmode = \"0600\"\n" + Self.merchant
        #expect(try ConfigLoader.parse(text, file: folder.configFile).vas.merchants.count == 1)
        let error = try Self.refusal(text, listening: Self.socket(), in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[0]" && error.problem.contains("the group of the socket passtapd listens on now"), "\(error)")
    }

    @Test func aReloadThatTightensTheSocketsGroupRefusesAKeyTheListeningSocketAllowed() throws {
        let folder = try VASConfigTests.Folder()
        try folder.key("group.pem", mode: 0o640)
        let started = "[socket]\ngroup = \"daemon\"\n" + Self.merchant
        let listening = Self.socket(group: "daemon")
        // As started, and reloaded unchanged: the socket's group (daemon) is not the key's.
        #expect(try ConfigLoader.parse(started, file: folder.configFile, listening: listening).vas.merchants.count == 1)
        // The file drops [socket] group: the next start's socket would have the key's group.
        let error = try Self.refusal(Self.merchant, listening: listening, in: folder)
        #expect(error.keyPath == "vas.merchants[0].keys[0]" && error.problem.contains("read it, and that is the socket's group"), "\(error)")
    }
}
