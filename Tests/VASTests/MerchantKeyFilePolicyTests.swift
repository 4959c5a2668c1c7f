import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import VAS

/// Who may read or write a key file: owner, plus group read (issue 3 §2).
@Suite(.timeLimit(.minutes(1))) struct MerchantKeyFilePolicyTests {
    @Test(arguments: [0o600, 0o400, 0o640, 0o440])
    func ownerOnlyAndGroupReadableFilesAreAccepted(mode: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.file("key.pem", bytes: TestVectors.bytes("Keys/passkit-sec1.pem"), mode: mode)
        try MerchantKeyFilePolicy.check(path: path)
        #expect(try MerchantKey(contentsOfFile: path).keyID.hex == TestVectors.passKitKeyID)
    }

    @Test(arguments: [
        (0o644, "readable by others"), (0o620, "writable by its group"), (0o606, "writable by others"),
        (0o660, "writable by its group"), (0o604, "readable by others"), (0o601, "executable by others"),
    ])
    func filesOthersCanUseOrTheGroupCanWriteAreRefused(mode: Int, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.file("key.pem", bytes: TestVectors.bytes("Keys/passkit-sec1.pem"), mode: mode)
        let checked = #expect(throws: MerchantKeyError.self) { try MerchantKeyFilePolicy.check(path: path) }
        #expect(checked?.code == .insecurePermissions)
        #expect(checked?.path == path)
        #expect(checked?.reason.contains(reason) == true)
        #expect(checked?.reason.contains(String(mode, radix: 8)) == true)
        let loaded = #expect(throws: MerchantKeyError.self) { try MerchantKey(contentsOfFile: path) }
        #expect(loaded?.code == .insecurePermissions)
    }

    @Test func aDirectoryIsNotAKeyFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKeyFilePolicy.check(path: directory.path) }
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
