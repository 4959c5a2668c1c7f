import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A client that does not read until told to: a plain socket, so no event loop reads ahead of
/// the test. Sends and reads never block (`MSG_DONTWAIT`, with short sleeps), so no thread of the
/// cooperative pool waits in a system call.
final class StalledClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// -1 once closed, so `deinit` (which also runs when init throws) never closes it twice.
    private var fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)) + [0])
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            fd = -1
            throw Failure(description: "cannot connect to \(path): \(String(cString: strerror(code)))")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends all of `bytes`, then ends the input (`shutdown(SHUT_WR)`).
    func sendThenEndInput(_ bytes: [UInt8]) async throws {
        var offset = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if errno == EAGAIN, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            } else {
                throw Failure(description: "send failed after \(offset) bytes: \(String(cString: strerror(errno)))")
            }
        }
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Everything the server sends until it closes the connection.
    func readToEnd(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + timeout
        while true {
            let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                received += chunk[..<count]
            } else if count == 0 {
                return received
            } else if errno == EAGAIN, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            } else {
                throw Failure(description: "read failed after \(received.count) bytes: \(String(cString: strerror(errno)))")
            }
        }
    }
}
