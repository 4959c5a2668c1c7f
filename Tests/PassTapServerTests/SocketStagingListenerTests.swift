import Foundation
import NIOCore
import NIOPosix
import PassTapTestSupport
import Testing

@testable import PassTapServer

/// The listener the server hands to NIO is bound by ``SocketStaging/bindListener(backlog:)``, so
/// closing it never unlinks anything through `/proc/self/fd/N/s`. A listener NIO binds by path
/// unlinks that path when it closes, and by then descriptor N can be another server's staging
/// directory: seen as "chown … failed: No such file or directory" when servers started and stopped
/// side by side in the tests.
@Suite struct SocketStagingListenerTests {
    @Test func closingTheAdoptedListenerLeavesItsBindPathAlone() async throws {
        let root = try ServerHarness.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let staging = try SocketStaging(for: SocketFile(path: root + "/passtapd.sock"))
        defer { staging.remove() }
        let listener = try staging.bindListener()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(listener) { channel in channel.eventLoop.makeSucceededFuture(channel) }
        var info = stat()
        #expect(stat(staging.bindPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
        try await server.channel.close()
        // Through NIO's bind(unixDomainSocketPath: staging.bindPath) this is ENOENT: NIO's close
        // unlinked the path.
        #expect(stat(staging.bindPath, &info) == 0, "the socket in the staging directory was unlinked: errno \(errno)")
    }
}
