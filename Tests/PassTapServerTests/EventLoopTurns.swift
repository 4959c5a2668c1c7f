import NIOCore
import NIOPosix
import PassTapTestSupport

/// Returns once every event loop of NIO's shared group (the socket server's, in these tests) has
/// run two ticks after this call began. Readiness that existed before the call, such as a
/// client's end of input, has been handled by then: a tick handles every event its wait reported
/// before it runs its tasks.
func eventLoopsHaveTurned() async throws {
    try await withDeadline("NIO's event loops to turn twice") {
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            for _ in 0..<2 { try await loop.submit {}.get() }
        }
    }
}
