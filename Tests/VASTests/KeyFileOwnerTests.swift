import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import VAS
import Wallets

/// `passtap keygen --owner USER[:GROUP]`: how the value is read and resolved, against a fixed
/// account table, and a real chown of a real file.
@Suite(.timeLimit(.minutes(1))) struct KeyFileOwnerTests {
    /// passtapd (uid 998, primary group 997), root (0, 0); groups passtapd (997), passtap (996).
    static let accounts = KeyFileOwner.Accounts(
        user: { ["passtapd": (uid: 998, gid: 997), "root": (uid: 0, gid: 0)][$0] },
        group: { ["passtapd": 997, "passtap": 996, "root": 0][$0] }
    )

    @Test func aUserAloneGetsItsPrimaryGroup() throws {
        let owner = try KeyFileOwner(parsing: "passtapd", accounts: Self.accounts)
        #expect(owner.uid == 998)
        #expect(owner.gid == 997)
        #expect(owner.description == "passtapd:997")
    }

    @Test func aUserAndGroupAreBothResolved() throws {
        let owner = try KeyFileOwner(parsing: "passtapd:passtap", accounts: Self.accounts)
        #expect(owner.uid == 998)
        #expect(owner.gid == 996)
        #expect(owner.description == "passtapd:passtap")
    }

    @Test func anUnknownUserIsNamed() {
        let error = #expect(throws: KeyFileOwnerError.self) { try KeyFileOwner(parsing: "pastapd", accounts: Self.accounts) }
        #expect(error?.code == .unknownUser)
        #expect(error?.description.contains("no user pastapd") == true)
    }

    @Test func anUnknownGroupIsNamed() {
        let error = #expect(throws: KeyFileOwnerError.self) { try KeyFileOwner(parsing: "passtapd:staff", accounts: Self.accounts) }
        #expect(error?.code == .unknownGroup)
        #expect(error?.description.contains("no group staff") == true)
    }

    /// Numbers are not taken as ids: a typo must not give a key to whoever has that uid.
    @Test(arguments: ["", ":", ":passtap", "passtapd:", "passtapd:passtap:x", "998"])
    func malformedOrUnknownValuesAreRefused(_ text: String) {
        let error = #expect(throws: KeyFileOwnerError.self) { try KeyFileOwner(parsing: text, accounts: Self.accounts) }
        #expect(error?.code == (text == "998" ? .unknownUser : .malformed))
        #expect(error?.description.hasPrefix("--owner \(text):") == true)
    }

    /// The system lookup finds the account every Debian system has.
    @Test func theSystemAccountsKnowNobody() throws {
        let owner = try KeyFileOwner(parsing: "nobody:nogroup")
        #expect(owner.uid == 65534)
        #expect(owner.gid == 65534)
    }

    /// As root (how the tests run) the file really changes hands; the mode stays.
    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func applyChangesTheFilesOwnerAndKeepsItsMode() throws {
        let path = NSTemporaryDirectory() + "passtap-owner-\(UUID().uuidString.prefix(8)).pem"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600]))
        try KeyFileOwner(parsing: "nobody:nogroup").apply(toFile: path)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_uid == 65534)
        #expect(status.st_gid == 65534)
        #expect(status.st_mode & 0o7777 == 0o600)
    }
}
