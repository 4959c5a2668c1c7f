import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking Unix-socket client for tests: writes lines, reads lines with a deadline.
/// (Test code only: the daemon itself never blocks like this.)
final class LineSocket {
    enum Failure: Error, CustomStringConvertible {
        case connect(path: String, errno: Int32)
        case timeout(String)
        case closed

        var description: String {
            switch self {
            case .connect(let path, let code): return "cannot connect to \(path): \(String(cString: strerror(code)))"
            case .timeout(let what): return "timed out waiting for \(what)"
            case .closed: return "the peer closed the connection"
            }
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        // Connected through a local first: `deinit` also runs when a fully initialised class
        // throws, and a second close of this number closes whatever another thread of the test
        // process opened meanwhile (SocketClientDescriptorTests).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes + [0])
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw Failure.connect(path: path, errno: code)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    /// Sends `bytes` as they are (they need not be UTF-8).
    func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure.closed }
            offset += written
        }
    }

    func sendLine(_ text: String) throws { try send(text + "\n") }

    /// The next line (without `\n`), waiting at most `timeout` seconds.
    func readLine(timeout: Double = 10, what: String = "a line") throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure.timeout(what) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000))
            if ready == 0 { throw Failure.timeout(what) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { throw Failure.closed }
            buffer += chunk[..<count]
        }
    }

    /// Reads JSON lines until one satisfies `match`, within `timeout` seconds overall.
    func readJSON(timeout: Double = 10, what: String, until match: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let line = try readLine(timeout: max(deadline.timeIntervalSinceNow, 0.001), what: what)
            if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], match(object) {
                return object
            }
        }
    }

    /// Whether the peer has closed the connection (after reading what is left), within `timeout`.
    func isClosedByPeer(timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            if recv(fd, &chunk, chunk.count, 0) <= 0 { return true }
        }
        return false
    }

    /// Sends `command` as one line to the line-command control socket at `path` (a virtual
    /// card's, the emulated PN532's) and returns its JSON answer, which must say `"ok": true`;
    /// `peer` names the socket's owner in errors.
    @discardableResult
    static func command(_ command: String, at path: String, peer: String, timeout: Double = 15) throws -> [String: Any] {
        let control = try LineSocket(path: path)
        try control.sendLine(command)
        let answer = try control.readLine(timeout: timeout, what: "\(peer)'s answer to \(command)")
        guard let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any], object["ok"] as? Bool == true else {
            throw Rig.Failure(description: "\(peer) refused '\(command)': \(answer)")
        }
        return object
    }
}
