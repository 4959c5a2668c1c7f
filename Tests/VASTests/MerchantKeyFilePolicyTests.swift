import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import VAS
import Wallets

/// Who may own, read and write a key file (docs/vas-keys.md, "Who may read a key file"): the owner
/// is root or the daemon's user, others get nothing, the group may only read, and only if it is the
/// daemon's own group and not the socket's; symbolic links lead only to files that pass the same
/// checks.
///
/// The tests run as root, so they give real files any owner and group with `chown`.
@Suite(.timeLimit(.minutes(1))) struct MerchantKeyFilePolicyTests {
    /// The daemon's own group and the socket's group in these tests (any two groups will do).
    static let daemonGroup: UInt32 = 1
    static let socketGroup: UInt32 = 2
    static let otherGroup: UInt32 = 3
    /// A daemon running as root with group 1, whose socket is group 2's.
    static let policy = MerchantKeyFilePolicy(owners: [0], readerGroups: [daemonGroup], socketGroup: socketGroup)

    /// A file holding the PassKit demo key with `mode`, owned by `uid`:`gid`.
    private func keyFile(
        in directory: TemporaryDirectory, _ name: String = "key.pem", mode: Int, uid: UInt32 = 0, gid: UInt32 = 0
    ) throws -> String {
        let path = try directory.file(name, bytes: TestVectors.bytes("Keys/passkit-sec1.pem"), mode: mode)
        #expect(chown(path, uid, gid) == 0)
        return path
    }

    @Test(arguments: [0o600, 0o400])
    func ownerOnlyFilesOfRootAreAccepted(mode: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: mode)
        try Self.policy.check(path: path)
        #expect(try MerchantKey(contentsOfFile: path, policy: Self.policy).keyID.hex == TestVectors.passKitKeyID)
    }

    @Test(arguments: [
        (0o644, "readable by others"), (0o620, "writable by its group"), (0o606, "writable by others"),
        (0o660, "writable by its group"), (0o604, "readable by others"), (0o601, "executable by others"),
    ])
    func filesOthersCanUseOrTheGroupCanWriteAreRefused(mode: Int, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: mode, gid: Self.daemonGroup)
        let checked = #expect(throws: MerchantKeyError.self) { try Self.policy.check(path: path) }
        #expect(checked?.code == .insecurePermissions)
        #expect(checked?.path == path)
        #expect(checked?.reason.contains(reason) == true)
        #expect(checked?.reason.contains(String(mode, radix: 8)) == true)
        #expect(checked?.reason.contains("chmod 0600 \(path)") == true)
        let loaded = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path, policy: Self.policy) }
        #expect(loaded?.code == .insecurePermissions)
    }

    @Test func aKeyOwnedByAnotherUserIsRefusedWithTheChownToRun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: 0o600, uid: 4321)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path, policy: Self.policy) }
        #expect(error?.code == .untrustedOwner)
        #expect(error?.reason.contains("owned by uid 4321, neither root nor the user passtapd runs as") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("chown root \(path)") == true)
    }

    @Test func aKeyOwnedByTheDaemonsUserIsAccepted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: 0o600, uid: 4321)
        let policy = MerchantKeyFilePolicy(owners: [4321], readerGroups: [Self.daemonGroup], socketGroup: Self.socketGroup)
        #expect(try MerchantKey(contentsOfFile: path, policy: policy).keyID.hex == TestVectors.passKitKeyID)
    }

    @Test(arguments: [0o640, 0o440])
    func aKeyTheDaemonsOwnGroupCanReadIsAccepted(mode: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: mode, gid: Self.daemonGroup)
        #expect(try MerchantKey(contentsOfFile: path, policy: Self.policy).keyID.hex == TestVectors.passKitKeyID)
    }

    @Test func aKeyTheSocketsGroupCanReadIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: 0o640, gid: Self.socketGroup)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path, policy: Self.policy) }
        #expect(error?.code == .insecurePermissions)
        #expect(error?.reason.contains("gid \(Self.socketGroup)) read it, and that is the socket's group") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("every client could read the key; run chmod 0600 \(path), or chgrp ") == true)
    }

    @Test func whenTheDaemonsGroupIsTheSocketsGroupNoGroupMayRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let policy = MerchantKeyFilePolicy(owners: [0], readerGroups: [Self.daemonGroup], socketGroup: Self.daemonGroup)
        let shared = try keyFile(in: directory, "shared.pem", mode: 0o640, gid: Self.daemonGroup)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: shared, policy: policy) }
        #expect(error?.code == .insecurePermissions)
        #expect(error?.reason.hasSuffix("run chmod 0600 \(shared)") == true, "no other group to offer: \(String(describing: error))")
        let private_ = try keyFile(in: directory, "private.pem", mode: 0o600, gid: Self.daemonGroup)
        #expect(try MerchantKey(contentsOfFile: private_, policy: policy).keyID.hex == TestVectors.passKitKeyID)
    }

    @Test func aKeyAnotherGroupCanReadIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try keyFile(in: directory, mode: 0o640, gid: Self.otherGroup)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path, policy: Self.policy) }
        #expect(error?.code == .insecurePermissions)
        #expect(error?.reason.contains("which is not passtapd's own group") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("chmod 0600 \(path)") == true)
    }

    @Test func aSymbolicLinkToAGoodKeyIsFollowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = try keyFile(in: directory, mode: 0o640, gid: Self.daemonGroup)
        let link = directory.path + "/link.pem"
        #expect(symlink(target, link) == 0)
        try Self.policy.check(path: link)
        #expect(try MerchantKey(contentsOfFile: link, policy: Self.policy).keyID.hex == TestVectors.passKitKeyID)
    }

    @Test(arguments: [(0o644, 0, MerchantKeyError.Code.insecurePermissions), (0o600, 4321, .untrustedOwner), (0o640, 2, .insecurePermissions)])
    func aSymbolicLinkToARefusedFileIsRefusedNamingItsTarget(mode: Int, owner: Int, code: MerchantKeyError.Code) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = try keyFile(in: directory, mode: mode, uid: owner == 4321 ? 4321 : 0, gid: owner == 2 ? Self.socketGroup : 0)
        let link = directory.path + "/link.pem"
        #expect(symlink(target, link) == 0)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: link, policy: Self.policy) }
        #expect(error?.code == code)
        #expect(error?.path == link)
        #expect(error?.reason.hasPrefix("a symbolic link to \(target), which is refused: ") == true, "\(String(describing: error))")
    }

    @Test func aDanglingSymbolicLinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.path + "/link.pem"
        #expect(symlink(directory.path + "/gone.pem", link) == 0)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: link, policy: Self.policy) }
        #expect(error?.code == .unreadable)
        #expect(error?.reason.contains("a symbolic link to \(directory.path)/gone.pem, which cannot be followed") == true, "\(String(describing: error))")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let mode: UInt32
        let uid: UInt32
        let gid: UInt32
        let refusal: MerchantKeyError.Code?
        var testDescription: String { "\(String(mode, radix: 8)) \(uid):\(gid)" }
    }

    static let cases: [Case] = [
        .init(mode: 0o600, uid: 0, gid: 0, refusal: nil),
        .init(mode: 0o600, uid: 0, gid: socketGroup, refusal: nil),  // the group gets nothing
        .init(mode: 0o640, uid: 0, gid: daemonGroup, refusal: nil),
        .init(mode: 0o640, uid: 0, gid: socketGroup, refusal: .insecurePermissions),
        .init(mode: 0o640, uid: 0, gid: otherGroup, refusal: .insecurePermissions),
        .init(mode: 0o600, uid: 1000, gid: 0, refusal: .untrustedOwner),
        .init(mode: 0o604, uid: 1000, gid: 0, refusal: .insecurePermissions),  // the mode is judged first
        .init(mode: 0o610, uid: 0, gid: socketGroup, refusal: nil),  // execute only: nobody reads through it
    ]

    @Test(arguments: cases)
    func theDecisionForEachModeOwnerAndGroup(_ entry: Case) {
        let status = MerchantKeyFilePolicy.FileStatus(mode: UInt32(S_IFREG) | entry.mode, uid: entry.uid, gid: entry.gid)
        var refusal: MerchantKeyError.Code? = nil
        do {
            try Self.policy.check(status, path: "/etc/passtap/keys/k.pem")
        } catch {
            refusal = error.code
            #expect(error.path == "/etc/passtap/keys/k.pem")
        }
        #expect(refusal == entry.refusal)
    }

    @Test func theDefaultPolicyIsThisProcesssUserAndGroupWithoutASocketGroup() {
        let policy = MerchantKeyFilePolicy()
        #expect(policy.owners == [0, UInt32(geteuid())])
        #expect(policy.readerGroups == [UInt32(getegid())])
        #expect(policy.socketGroup == nil)
    }

    @Test func aDirectoryIsNotAKeyFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = #expect(throws: MerchantKeyError.self) { try Self.policy.check(path: directory.path) }
        #expect(error?.code == .notRegularFile)
    }

    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/fifo.pem"
        #expect(mkfifo(path, 0o600) == 0)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path) }
        #expect(error?.code == .notRegularFile)
    }

    @Test func aMissingFileIsUnreadableNamingThePath() throws {
        let path = NSTemporaryDirectory() + "vas-tests-missing-" + UUID().uuidString
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path) }
        #expect(error?.code == .unreadable)
        #expect(error?.description.contains(path) == true)
    }

    @Test func oversizedFilesAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.file("big.pem", bytes: [UInt8](repeating: 0x41, count: 20_000), mode: 0o600)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path) }
        #expect(error?.code == .tooLarge)
    }
}
