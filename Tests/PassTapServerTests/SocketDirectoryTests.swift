import Foundation
import Logging
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing

@testable import PassTapServer

/// The socket file is never looser than `[socket] mode`: the umask it is created under keeps only
/// the configured owner bits, and no user but root and the daemon's can change a directory or a
/// symbolic link on its way (docs/operations.md, "The socket path").
@Suite(.timeLimit(.minutes(1))) struct SocketDirectoryTests {
    private func makeServer(path: String) -> SocketServer {
        SocketServer(
            live: LiveConfiguration(Configuration(path: path)), hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 4),
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
        var socket = Configuration.Socket()
        socket.mode = mode
        let mask = socket.fileCreationMask
        // bind() creates a socket file with 0777 less the umask.
        let created = 0o777 & ~mask
        #expect(created & ~mode == 0, "created \(String(created, radix: 8)) for mode \(String(mode, radix: 8))")
        #expect(created & 0o077 == 0, "nobody but the owner until the group and mode are set")
        #expect(created == mode & 0o700)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let mode: UInt32
        let uid: UInt32
        let gid: UInt32
        let problem: SocketFile.DirectoryProblem?
        var testDescription: String { "\(String(mode, radix: 8)) uid \(uid) gid \(gid)" }

        init(_ mode: UInt32, uid: UInt32, gid: UInt32 = 0, _ problem: SocketFile.DirectoryProblem?) {
            self.mode = mode
            self.uid = uid
            self.gid = gid
            self.problem = problem
        }
    }

    static let ownUID: UInt32 = 4242
    static let directory = UInt32(S_IFDIR)
    static let link = UInt32(S_IFLNK)
    static let cases: [Case] = [
        // Root's or ours, written by nobody else.
        .init(directory | 0o755, uid: 0, nil),
        .init(directory | 0o755, uid: ownUID, nil),
        .init(directory | 0o700, uid: ownUID, nil),
        .init(directory | 0o1755, uid: ownUID, nil),
        // Another owner, whatever the mode (the reproduced attack: nobody's 0755 directory).
        .init(directory | 0o755, uid: 65534, .foreignOwner(uid: 65534)),
        .init(directory | 0o700, uid: 1000, .foreignOwner(uid: 1000)),
        .init(directory | 0o1777, uid: 1000, .foreignOwner(uid: 1000)),
        .init(directory | 0o1773, uid: 65534, .foreignOwner(uid: 65534)),
        // Group-writable, by any group.
        .init(directory | 0o775, uid: 0, gid: 0, .writableByGroup(gid: 0)),
        .init(directory | 0o770, uid: ownUID, gid: 100, .writableByGroup(gid: 100)),
        // Writable by others.
        .init(directory | 0o777, uid: 0, .writableByOthers(sticky: false)),
        .init(directory | 0o757, uid: ownUID, .writableByOthers(sticky: false)),
        // Sticky: trusted only when root owns it, as /tmp (ours lost the exception).
        .init(directory | 0o1777, uid: 0, nil),
        .init(directory | 0o1775, uid: 0, gid: 100, nil),
        .init(directory | 0o1777, uid: ownUID, .writableByOthers(sticky: true)),
        // Symbolic links: by owner only.
        .init(link | 0o777, uid: 0, nil),
        .init(link | 0o777, uid: ownUID, nil),
        .init(link | 0o777, uid: 65534, .foreignLink(uid: 65534)),
    ]

    @Test(arguments: cases)
    func onlyRootAndTheDaemonsUserMayChangeADirectoryOnTheWayUnlessItIsStickyAndRoots(_ entry: Case) {
        let status = SocketFile.DirectoryStatus(mode: entry.mode, uid: entry.uid, gid: entry.gid)
        #expect(SocketFile.problem(with: status, euid: Self.ownUID) == entry.problem)
        let file = SocketFile(path: "/srv/d/p.sock")
        do {
            try file.check(status, at: "/srv/d", euid: Self.ownUID)
            #expect(entry.problem == nil)
        } catch {
            #expect(entry.problem != nil)
            #expect(error.code == .insecureDirectory)
            #expect(error.message.contains("/srv/d ") && error.message.contains("/srv/d/p.sock"), "\(error)")
        }
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
        #expect(error?.message.contains("the directory \(shared) is owned by uid 65534") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aDirectoryOwnedByAnotherUserIsRefusedEvenIfOnlyItsOwnerCanWriteIt() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let theirs = root + "/theirs"
        makeDirectory(theirs, mode: 0o755, owner: 65534)
        let error = try await refusal(at: theirs + "/passtapd.sock")
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("the directory \(theirs) is owned by uid 65534") == true, "\(String(describing: error))")
        #expect(error?.message.contains("not by root or passtapd's user (uid \(geteuid())") == true, "\(String(describing: error))")
    }

    @Test func nothingIsMadeInsideADirectoryThatIsRefused() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let theirs = root + "/theirs"
        makeDirectory(theirs, mode: 0o755, owner: 65534)
        let error = try await refusal(at: theirs + "/run/passtapd.sock")
        #expect(error?.code == .insecureDirectory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: theirs).isEmpty)
    }

    @Test func aGroupWritableDirectoryIsRefusedNamingItsGroup() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let shared = root + "/shared"
        makeDirectory(shared, mode: 0o775)
        let error = try await refusal(at: shared + "/passtapd.sock")
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("the directory \(shared) is writable by its group gid \(getegid())") == true, "\(String(describing: error))")
        #expect(error?.message.contains("chmod g-w \(shared)") == true)
    }

    @Test func aSymbolicLinkOwnedByAnotherUserIsRefused() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        makeDirectory(root + "/run", mode: 0o755)
        #expect(symlink(root + "/run", root + "/link") == 0)
        #expect(lchown(root + "/link", 65534, gid_t.max) == 0)
        let error = try await refusal(at: root + "/link/passtapd.sock")
        #expect(error?.code == .insecureDirectory)
        #expect(error?.message.contains("\(root)/link is a symbolic link owned by uid 65534") == true, "\(String(describing: error))")
    }

    @Test func theCheckForCheckConfigJudgesTheNearestDirectoryThatExists() throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Missing below a good directory: accepted, and nothing is made.
        try SocketServer.checkDirectories(forSocketAt: root + "/run/deeper/passtapd.sock")
        #expect(!FileManager.default.fileExists(atPath: root + "/run"))
        // Missing below another user's directory: refused, naming it.
        let theirs = root + "/theirs"
        makeDirectory(theirs, mode: 0o755, owner: 65534)
        #expect {
            try SocketServer.checkDirectories(forSocketAt: theirs + "/run/passtapd.sock")
        } throws: { error in
            (error as? SocketServerError)?.message.contains("the directory \(theirs) is owned by uid 65534") == true
        }
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

    @Test func aStickyDirectoryOwnedByRootIsAccepted() async throws {
        let root = try makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let shared = root + "/shared"
        makeDirectory(shared, mode: 0o1777, owner: 0)
        let path = shared + "/passtapd.sock"
        let server = makeServer(path: path)
        try await ServerHarness.expectStatus(from: server, at: path)
    }

    @Test func noStagingDirectoryIsLeftBehind() async throws {
        try await ServerHarness.with { harness in
            let entries = try FileManager.default.contentsOfDirectory(atPath: harness.directory + "/run")
            #expect(entries == ["passtapd.sock"])
        }
    }
}
