import Foundation
import Logging
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing

@testable import PassTapServer

/// The socket file is never looser than `[socket] mode`: the umask it is created under keeps only
/// the configured owner bits, and no other user can replace it or a directory on its way.
@Suite(.timeLimit(.minutes(1))) struct SocketDirectoryTests {
    private func makeServer(path: String) -> SocketServer {
        SocketServer(
            configuration: SocketServerConfiguration(path: path), hub: EventHub(capacity: 4),
            backends: ReaderBackends([FakeReaderBackend()]), daemon: .startingNow(version: "test"), logger: Logger(label: "test"))
    }

    /// Makes `directory` with exactly `mode` (chmod, whatever the umask) and, if given, owner `uid`.
    private func makeDirectory(_ directory: String, mode: mode_t, owner uid: uid_t? = nil) {
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chmod(directory, mode) == 0)
        if let uid { #expect(chown(directory, uid, gid_t.max) == 0) }
    }

    /// A fresh temporary directory by its real path (error messages name resolved directories).
    private func makeRoot() throws -> String {
        let made = try ServerHarness.makeDirectory()
        guard let resolved = realpath(made, nil) else { return made }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Runs a server on `path` and returns the error its `run()` ends with.
    private func refusal(at path: String) async throws -> SocketServerError? {
        let server = makeServer(path: path)
        do {
            try await withDeadline("run() to refuse the directory") { try await server.run() }
        } catch let error as SocketServerError {
            return error
        }
        Issue.record("the server started on \(path)")
        return nil
    }

    @Test(arguments: [0o660, 0o600, 0o640, 0o620, 0o770, 0o700, 0o060, 0o400, 0o000] as [UInt16])
    func theCreationMaskLetsBindMakeTheSocketNoLooserThanItsMode(mode: UInt16) {
        let mask = SocketServerConfiguration(path: "/run/p.sock", mode: mode).fileCreationMask
        // bind() creates a socket file with 0777 less the umask.
        let created = 0o777 & ~mask
        #expect(created & ~mode == 0, "created \(String(created, radix: 8)) for mode \(String(mode, radix: 8))")
        #expect(created & 0o077 == 0, "nobody but the owner until the group and mode are set")
        #expect(created == mode & 0o700)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let mode: UInt32
        let uid: UInt32
        let refused: Bool
        var testDescription: String { "\(String(mode, radix: 8)) uid \(uid)" }
    }

    static let ownUID: UInt32 = 4242
    static let cases: [Case] = [
        .init(mode: 0o755, uid: 1000, refused: false),
        .init(mode: 0o775, uid: 1000, refused: false),
        .init(mode: 0o777, uid: 0, refused: true),
        .init(mode: 0o757, uid: ownUID, refused: true),
        .init(mode: 0o1777, uid: 0, refused: false),
        .init(mode: 0o1777, uid: ownUID, refused: false),
        .init(mode: 0o1777, uid: 1000, refused: true),
        .init(mode: 0o1773, uid: 65534, refused: true),
        .init(mode: 0o1755, uid: 1000, refused: false),
    ]

    @Test(arguments: cases)
    func aDirectoryOthersCanWriteIsRefusedUnlessStickyAndOwnedByRootOrUs(_ entry: Case) {
        let status = SocketFile.DirectoryStatus(mode: UInt32(S_IFDIR) | entry.mode, uid: entry.uid)
        let refused: Bool
        do {
            try SocketFile.checkDirectory(status, at: "/srv/d", socket: "/srv/d/p.sock", euid: Self.ownUID)
            refused = false
        } catch {
            refused = true
            #expect(error.code == .insecureDirectory)
            #expect(error.message.contains("/srv/d ") && error.message.contains("/srv/d/p.sock"))
            #expect(error.message.contains("mode \(String(entry.mode, radix: 8))"))
        }
        #expect(refused == entry.refused)
    }

    @Test func aWorldWritableDirectoryThatIsNotStickyIsRefusedNamingItAndWhatToDo() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let open = root + "/open"
        makeDirectory(open, mode: 0o777)
        let path = open + "/passtapd.sock"
        let error = try await refusal(at: path)
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("the directory \(open) is writable by others and not sticky (mode 777)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("chmod o-w \(open)") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aStickyDirectoryOwnedByAnotherUserIsRefused() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let shared = root + "/shared"
        makeDirectory(shared, mode: 0o1777, owner: 65534)
        let path = shared + "/passtapd.sock"
        let error = try await refusal(at: path)
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("\(shared) is writable by others and, though sticky (mode 1777), owned by uid 65534") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aDirectoryAboveTheSocketThatOthersCanWriteIsRefused() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let open = root + "/open"
        makeDirectory(open, mode: 0o777)
        // The socket's own directory is fine, but anyone could rename it away and put another there.
        makeDirectory(open + "/run", mode: 0o755)
        let error = try await refusal(at: open + "/run/passtapd.sock")
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("the directory \(open) is") == true, "\(String(describing: error))")
    }

    @Test func aSymbolicLinkToAWorldWritableDirectoryIsResolvedAndRefused() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        makeDirectory(root + "/open", mode: 0o777)
        #expect(symlink(root + "/open", root + "/link") == 0)
        let error = try await refusal(at: root + "/link/passtapd.sock")
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("the directory \(root)/open is") == true, "\(String(describing: error))")
    }

    @Test func aStickyDirectoryOwnedByRootOrUsIsAccepted() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let shared = root + "/shared"
        makeDirectory(shared, mode: 0o1777, owner: geteuid())
        let path = shared + "/passtapd.sock"
        let server = makeServer(path: path)
        try await ServerHarness.expectStatus(from: server, at: path)
    }
}
