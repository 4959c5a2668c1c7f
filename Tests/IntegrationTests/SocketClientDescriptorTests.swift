import Foundation
import Glibc
import PassTapTestNetwork
import Synchronization
import Testing

/// The rig's socket clients close a descriptor once. `deinit` also runs when a fully initialised
/// class throws, so a client that closed its socket on a failed connect and again in `deinit`
/// closed whatever another thread had opened under that number in between: in the one test
/// process, that can be libnfc's serial port or abort pipe, or a daemon's socket.
@Suite struct SocketClientDescriptorTests {
    /// Failed connects on two threads while a third keeps opening pipes and checks they stay
    /// open until it closes them itself: a second close of a reused number shows as a pipe
    /// closed under it.
    @Test(arguments: [Client.line, .webSocket])
    func aFailedConnectClosesOnlyItsOwnDescriptor(_ client: Client) throws {
        let path = NSTemporaryDirectory() + "passtap-absent-\(UUID().uuidString.prefix(8)).sock"
        // Port 1 on loopback: nothing listens there, so every connect is refused.
        let failedConnect: @Sendable () -> Void
        switch client {
        case .line: failedConnect = { _ = try? LineClient(path: path) }
        case .webSocket: failedConnect = { _ = try? WebSocketClient(port: 1) }
        }
        let done = Atomic<Int>(0)
        let closedUnderUs = Atomic<Int>(0)
        let checked = Atomic<Int>(0)
        let attempts = 20_000
        for _ in 0..<2 {
            Thread {
                for _ in 0..<attempts { failedConnect() }
                done.add(1, ordering: .sequentiallyConsistent)
            }.start()
        }
        var ends: [Int32] = [0, 0]
        while done.load(ordering: .sequentiallyConsistent) < 2 {
            guard pipe(&ends) == 0 else { continue }
            // A few instructions with the numbers open: the other threads' connects run meanwhile.
            for _ in 0..<8 where fcntl(ends[0], F_GETFD) == -1 || fcntl(ends[1], F_GETFD) == -1 {
                closedUnderUs.add(1, ordering: .relaxed)
                break
            }
            close(ends[0])
            close(ends[1])
            checked.add(1, ordering: .relaxed)
        }
        #expect(checked.load(ordering: .relaxed) > 0)
        #expect(closedUnderUs.load(ordering: .relaxed) == 0, "pipes closed under their owner: \(closedUnderUs.load(ordering: .relaxed))")
    }

    enum Client: Sendable, CustomTestStringConvertible {
        case line, webSocket
        var testDescription: String { self == .line ? "LineClient" : "WebSocketClient" }
    }
}

/// What a rig child inherits: its three standard streams and nothing else. libnfc opens its
/// serial port and abort pipe without `O_CLOEXEC`; a daemon or emulator spawned while a test's
/// device is open would otherwise hold that pipe's read end, and the test's stop could not abort.
@Suite struct SpawnedDescriptorTests {
    @Test func aChildGetsOnlyItsStandardStreams() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)  // without O_CLOEXEC, as libnfc's
        defer { close(ends[0]); close(ends[1]) }
        let output = NSTemporaryDirectory() + "passtap-fds-\(UUID().uuidString.prefix(8))"
        defer { unlink(output) }
        // The shell lists the descriptors of the process `exec` made of it (ls is the listed one).
        let child = try Spawned.start("/bin/sh", ["-c", "exec ls /proc/self/fd"], stdout: output, stderr: output)
        let (status, inTime) = child.wait(seconds: 10)
        #expect(inTime && Spawned.exitCode(waitStatus: status) == 0)
        let listed = Set(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) })
        // 3 is the descriptor ls opens on /proc/self/fd to list it.
        #expect(listed.subtracting([0, 1, 2, 3]).isEmpty, "inherited: \(listed.sorted())")
        #expect(!listed.contains(ends[0]) || ends[0] == 3, "\(listed.sorted())")
    }
}
