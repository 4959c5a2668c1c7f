import Foundation
import Logging
import NIOPosix
import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import PassTapTestSupport
import Testing

/// Runs a ``SocketServer`` on a socket in a fresh temporary directory for one test.
struct ServerHarness {
    let directory: String
    let path: String
    let hub: EventHub
    let backend: FakeReaderBackend
    /// The queue `vas.read` waits in; tests play the tap coordinator with `claim` and `finish`.
    let vasReads: PassReadQueue
    let daemon: DaemonInfo
    let server: SocketServer

    static let readers = [
        ReaderInfo(id: .pcsc("Zeta Reader 00 00"), name: "Zeta Reader 00 00", backend: "pcsc", state: .empty),
        ReaderInfo(id: .pcsc("Alpha Reader 00 00"), name: "Alpha Reader 00 00", backend: "pcsc", state: .present),
    ]

    /// A fresh temporary directory (removed by the caller).
    static func makeDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/passtap-server-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return String(cString: made)
    }

    /// Starts a server (socket at `<tmp>/run/passtapd.sock`, a directory that does not exist yet),
    /// waits until it listens, runs `body`, then stops the server and removes the directory.
    static func with(
        backend: FakeReaderBackend = FakeReaderBackend(readers: readers),
        hubCapacity: Int = 64,
        vasReads: PassReadQueue = PassReadQueue(),
        configure: (inout Configuration) -> Void = { _ in },
        logger: Logger = Logger(label: "passtap.test.server"),
        observer: SocketServerObserver = .none,
        health: HealthSources = HealthSources(),
        _ body: (ServerHarness) async throws -> Void
    ) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Configuration(path: directory + "/run/passtapd.sock")
        // This process's user holds every role, root or not (tests of roles set their own).
        configuration.access = Configuration.Access(observe: [.everyone], read: [.user(getuid())], transmit: [.user(getuid())])
        configure(&configuration)
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: hubCapacity)
        let daemon = DaemonInfo.startingNow(version: "9.8.7-test")
        let server = SocketServer(
            live: LiveConfiguration(configuration), hub: hub, backends: ReaderBackends([backend]), daemon: daemon,
            vasReads: vasReads, logger: logger, health: health, observer: observer)
        let harness = ServerHarness(
            directory: directory, path: configuration.socket.path, hub: hub, backend: backend, vasReads: vasReads, daemon: daemon,
            server: server)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            do {
                try await withDeadline("the server to listen") { try await server.waitUntilListening() }
                try await body(harness)
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// Runs `server` (made with version "test"), checks that a client at `path` gets its
    /// `status`, then stops it.
    static func expectStatus(from server: SocketServer, at path: String) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await withDeadline("the server to listen") { try await server.waitUntilListening() }
            let answer = try await LineClient.with(path: path) { client in
                try await client.call(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#, expecting: StatusResult.self)
            }
            #expect(try answer.outcome.get().version == "test")
            group.cancelAll()
        }
    }

    /// Waits until `count` `vas.read` calls wait on `reader` (they queue asynchronously), with a
    /// generous deadline; records an issue if they never do.
    func waitForVASReads(_ count: Int, on reader: ReaderID) async throws {
        try? await waitUntil("\(count) vas.read waiting") { [vasReads = self.vasReads] in
            vasReads.waitingCount(on: reader) == count
        }
        #expect(vasReads.waitingCount(on: reader) == count)
    }

    /// Publishes a `card.removed` event for the first reader.
    @discardableResult
    func publishRemoval() -> Event {
        hub.publish(.cardRemoved, reader: Self.readers[0].id, payload: .cardRemoved)
    }
}
