import ForwardSettings
import Foundation
import Logging
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Synchronization
import Testing

@testable import PassTapServer

/// The permission step cannot be turned against another file (docs/operations.md, "The socket
/// path"): with the directory check off, so that the socket sits in a directory `nobody` owns,
/// `nobody` renames a symbolic link to a root-owned file over every socket file the server
/// publishes, as fast as it can. Setting the group and mode must never reach that file.
@Suite(.timeLimit(.minutes(3)), .enabled(if: getuid() == 0, "needs root to run the attacker as nobody"))
struct SocketPermissionRaceTests {
    static let nobody: UInt32 = 65534
    static let binds = 200

    /// The attacker: a Python loop run as `nobody:nogroup` through `setpriv`. Each time
    /// a socket file is at `socket`, it renames a link to `victim` over it and prints `swapped`.
    final class Attacker {
        private let process: Process
        let swaps: AsyncStream<Void>

        init(socket: String, victim: String) throws {
            let script = """
                import os, stat, sys
                sock, victim = sys.argv[1], sys.argv[2]
                link = os.path.join(os.path.dirname(sock), "link")
                while True:
                    try:
                        if not stat.S_ISSOCK(os.lstat(sock).st_mode):
                            continue
                    except FileNotFoundError:
                        continue
                    try:
                        os.symlink(victim, link)
                    except FileExistsError:
                        pass
                    os.rename(link, sock)
                    sys.stdout.write("swapped\\n")
                    sys.stdout.flush()
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = [
                "--reuid=\(SocketPermissionRaceTests.nobody)", "--regid=\(SocketPermissionRaceTests.nobody)", "--clear-groups", "/usr/bin/python3", "-c", script, socket, victim,
            ]
            let output = Pipe()
            process.standardOutput = output
            let (swaps, continuation) = AsyncStream<Void>.makeStream()
            self.swaps = swaps
            self.process = process
            try process.run()
            // Read on a thread of its own: a blocking read never runs on the cooperative pool.
            let reading = output.fileHandleForReading
            Thread.detachNewThread {
                while true {
                    let data = reading.availableData
                    guard !data.isEmpty else { break }
                    for byte in data where byte == UInt8(ascii: "\n") { continuation.yield() }
                }
                continuation.finish()
            }
        }

        /// Kills the loop with SIGKILL: the test runner blocks SIGTERM, and its children inherit that.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    struct Ownership: Equatable, CustomStringConvertible {
        let uid: uid_t
        let gid: gid_t
        let mode: mode_t

        static func of(_ path: String) -> Ownership {
            var info = stat()
            _ = lstat(path, &info)
            return Ownership(uid: info.st_uid, gid: info.st_gid, mode: info.st_mode & 0o7777)
        }

        var description: String { "\(uid):\(gid) \(String(mode, radix: 8))" }
    }

    @Test func aLinkRenamedOverTheSocketNeverGivesItsTargetTheSocketsGroupOrMode() async throws {
        let root = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(chmod(root, 0o755) == 0)  // nobody must reach evil/
        let victim = root + "/victim"
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600]))
        let before = Ownership.of(victim)
        #expect(before == Ownership(uid: 0, gid: 0, mode: 0o600))
        let evil = root + "/evil"
        #expect(mkdir(evil, 0o755) == 0 && chown(evil, Self.nobody, Self.nobody) == 0)
        let socket = evil + "/passtapd.sock"
        var configuration = Configuration(path: socket)
        configuration.socket.group = "nogroup"
        let live = LiveConfiguration(configuration)

        let attacker = try Attacker(socket: socket, victim: victim)
        defer { attacker.stop() }
        let swaps = attacker.swaps
        for round in 1...Self.binds {
            // What the attacker left at the name last round.
            unlink(socket)
            let server = SocketServer(
                live: live, hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 4), backends: ReaderBackends([FakeReaderBackend()]), daemon: .startingNow(version: "test"),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), checksDirectories: false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                try await withDeadline("bind \(round) to listen") { try await server.waitUntilListening() }
                try await withDeadline("the attacker's link over socket \(round)") {
                    for await _ in swaps { return }
                }
                group.cancelAll()
                try await group.waitForAll()
            }
            let after = Ownership.of(victim)
            guard after == before else {
                Issue.record("bind \(round): the victim went from \(before) to \(after)")
                return
            }
        }
    }

    /// The other way in: another user who can write the socket's directory renames the staging
    /// directory away between its creation and the bind, and puts one of their own in its place
    /// with a link named like the socket. Done here by the test itself, deterministically: every
    /// step after the bind goes through the staging directory's descriptor, so the group and mode
    /// reach the bound socket, which ends up at its name, and never the link's target.
    @Test func aStagingDirectorySwappedForAnotherCannotRedirectThePermissionStep() throws {
        let root = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let victim = root + "/victim"
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("secret".utf8), attributes: [.posixPermissions: 0o600]))
        let before = Ownership.of(victim)
        let file = SocketFile(path: root + "/passtapd.sock")
        let staging = try SocketStaging(for: file)
        defer { staging.remove() }
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: root).first { $0.hasPrefix(SocketStaging.prefix) })
        #expect(rename(root + "/" + name, root + "/moved") == 0)
        #expect(mkdir(root + "/" + name, 0o755) == 0)
        #expect(symlink(victim, root + "/" + name + "/" + SocketStaging.socketName) == 0)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let address = try SocketAddress(unixDomainSocketPath: staging.bindPath)
        #expect(address.withSockAddr { pointer, length in bind(fd, pointer, socklen_t(length)) } == 0)
        let inode = try staging.publish(mode: 0o640, group: "nogroup")

        #expect(Ownership.of(victim) == before)
        var info = stat()
        #expect(lstat(file.path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK && info.st_ino == inode)
        #expect(Ownership.of(file.path) == Ownership(uid: 0, gid: getgrnam("nogroup").pointee.gr_gid, mode: 0o640))
    }
}
