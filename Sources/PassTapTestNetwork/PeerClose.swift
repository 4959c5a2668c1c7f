import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one "has the other end closed?" of the kit's clients (`LineClient`, `WebSocketClient`).
enum PeerClose {
    /// Reads and drops what is left on `fd` until the peer closes (true) or `timeout` seconds
    /// pass (false), looking every 100 ms.
    static func wait(on fd: Int32, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            if recv(fd, &chunk, chunk.count, 0) <= 0 { return true }
        }
        return false
    }
}
