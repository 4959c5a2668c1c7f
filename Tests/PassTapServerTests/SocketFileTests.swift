import Foundation
import Logging
import NIOCore
import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import ServiceLifecycle
import PassTapTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct SocketFileTests {
    private func mode(of path: String) -> UInt16? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return UInt16(info.st_mode & 0o7777)
    }

    private func makeServer(path: String, group: String? = nil) -> SocketServer {
        var configuration = Configuration(path: path)
        configuration.socket.group = group
        return SocketServer(
            live: LiveConfiguration(configuration), hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 4),
            backends: ReaderBackends([FakeReaderBackend()]), daemon: .startingNow(version: "test"), logger: Logger(label: "test"))
    }

    /// Leaves a socket file nobody listens on, as a crashed daemon would.
    private func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        let address = try SocketAddress(unixDomainSocketPath: path)
        let bound = address.withSockAddr { pointer, length in bind(fd, pointer, socklen_t(length)) }
        #expect(bound == 0)
    }

    @Test func theSocketFileGetsMode0660InADirectoryCreatedWith0755() async throws {
        try await ServerHarness.with { harness in
            #expect(mode(of: harness.path) == 0o660)
            #expect(mode(of: harness.directory + "/run") == 0o755)
        }
    }

    @Test func theConfiguredModeIsApplied() async throws {
        try await ServerHarness.with(configure: { $0.socket.mode = 0o600 }) { harness in
            #expect(mode(of: harness.path) == 0o600)
        }
    }

    /// A group this process is not in as its primary group, so only `chown` can give it to the file.
    private func otherGroup() throws -> (name: String, gid: gid_t) {
        let own = getegid()
        for name in ["daemon", "bin", "sys", "adm", "nogroup"] {
            if let entry = getgrnam(name), entry.pointee.gr_gid != own { return (name, entry.pointee.gr_gid) }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    @Test func theConfiguredGroupAndModeAreAppliedAfterBind() async throws {
        let (name, gid) = try otherGroup()
        try await ServerHarness.with(configure: { $0.socket.group = name; $0.socket.mode = 0o640 }) { harness in
            var info = stat()
            #expect(lstat(harness.path, &info) == 0)
            #expect(info.st_gid == gid)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(mode(of: harness.path) == 0o640)
        }
    }

    @Test func aMissingGroupIsAnErrorNamingIt() async throws {
        let directory = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/passtapd.sock"
        let server = makeServer(path: path, group: "passtap-no-such-group")
        await #expect {
            try await withDeadline("run() to refuse the missing group") { try await server.run() }
        } throws: { error in
            let failure = error as? SocketServerError
            return failure?.code == .unknownGroup && failure?.message.contains("passtap-no-such-group") == true
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        let directory = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/passtapd.sock"
        try makeStaleSocket(at: path)
        let server = makeServer(path: path)
        try await ServerHarness.expectStatus(from: server, at: path)
    }

    @Test func aLiveSocketOfAnotherServerIsNeverTaken() async throws {
        try await ServerHarness.with { harness in
            let intruder = makeServer(path: harness.path)
            await #expect {
                try await withDeadline("the intruder's run() to refuse") { try await intruder.run() }
            } throws: { error in
                let failure = error as? SocketServerError
                return failure?.code == .addressInUse && failure?.message.contains(harness.path) == true
            }
            let answer = try await LineClient.with(path: harness.path) { client in
                try await client.call(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#, expecting: StatusResult.self)
            }
            #expect(try answer.outcome.get().instance == harness.daemon.instance)
        }
    }

    @Test func aFileThatIsNotASocketIsLeftAlone() async throws {
        let directory = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/passtapd.sock"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))
        let server = makeServer(path: path)
        await #expect {
            try await withDeadline("run() to refuse the file") { try await server.run() }
        } throws: { error in
            (error as? SocketServerError)?.code == .notASocket
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    @Test func gracefulShutdownClosesClientsAndRemovesTheSocketFile() async throws {
        let directory = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/passtapd.sock"
        let server = makeServer(path: path)
        let services = ServiceGroup(services: [server], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            try await withDeadline("the server to listen") { try await server.waitUntilListening() }
            #expect(FileManager.default.fileExists(atPath: path))
            try await LineClient.with(path: path) { client in
                _ = try await client.subscribe()
                try await withDeadline("graceful shutdown to be triggered") { await services.triggerGracefulShutdown() }
                #expect(try await client.nextLine() == nil)
            }
            try await group.waitForAll()
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
