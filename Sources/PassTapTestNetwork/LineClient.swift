import Foundation
public import PassTapProtocol
import PassTapTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one test client of a line socket (NDJSON over a Unix stream socket): passtapd's socket, and
/// the control sockets of the rig's Python peers (the virtual card, the emulated PN532, the webhook
/// receiver). It splits what comes back into lines itself, so tests check the server's framing
/// rather than trust a shared decoder, and every read has a deadline.
///
/// It sits on a plain blocking socket, so a rig on a thread of its own uses it directly
/// (``readLine(timeout:what:)``). Tests on the concurrency pool use the `async` reads
/// (``nextLine(timeout:waitingFor:)``, ``read(_:)``, ``call(_:expecting:)``), which wait on a
/// thread of their own, never on the pool the server under test may need. A write waits at most
/// ``writeTimeout`` for room, so a server that stops reading fails the test instead of hanging it.
/// One task or thread uses a client at a time.
public final class LineClient: @unchecked Sendable {
    /// Why a connection, a write or a read failed.
    public enum Failure: Error, CustomStringConvertible {
        case connect(path: String, errno: Int32)
        case timeout(String)
        case closed
        /// A control socket answered a command with something other than `"ok": true`.
        case refused(peer: String, command: String, answer: String)

        public var description: String {
            switch self {
            case .connect(let path, let code): return "cannot connect to \(path): \(String(cString: strerror(code)))"
            case .timeout(let what): return "timed out waiting for \(what)"
            case .closed: return "the peer closed the connection"
            case .refused(let peer, let command, let answer): return "\(peer) refused '\(command)': \(answer)"
            }
        }
    }

    /// Thrown by the `async` reads when the server closed the connection before a line the test
    /// expected.
    public struct ClosedEarly: Error {
        public init() {}
    }

    /// How long an `async` read waits for the server by default: its answers take milliseconds.
    public static let readTimeout: Duration = .seconds(10)
    /// How long a write waits for room in the socket before it fails.
    public static let writeTimeout = 10.0

    private let fd: Int32
    private let closed = Atomic(false)
    private var buffer: [UInt8] = []

    /// Connects to the Unix socket at `path`.
    public init(path: String) throws {
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
            _ = Glibc.close(fd)
            throw Failure.connect(path: path, errno: code)
        }
        self.fd = fd
    }

    deinit { close() }

    /// Closes the connection (once; later calls do nothing).
    public func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { _ = Glibc.close(fd) }
    }

    /// Connects to `path`, runs `body` with the client, and closes the connection afterwards.
    public static func with<Result: Sendable>(path: String, _ body: (LineClient) async throws -> Result) async throws -> Result {
        let client = try LineClient(path: path)
        defer { client.close() }
        return try await body(client)
    }

    // MARK: Writing

    /// Sends `text` as it is (no newline added).
    public func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    /// Sends `text` followed by a newline.
    public func sendLine(_ text: String) throws { try send(text + "\n") }

    /// Sends `bytes` as they are (they need not be UTF-8).
    public func send(bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, Int32(Self.writeTimeout * 1000)) > 0 else { throw Failure.timeout("room to write") }
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure.closed }
            offset += written
        }
    }

    /// Ends the client's input to the server (`shutdown(SHUT_WR)`, as `socat` and `nc -N` do at the
    /// end of their standard input) and goes on reading.
    public func closeOutput() throws {
        guard shutdown(fd, Int32(SHUT_WR)) == 0 else { throw Failure.closed }
    }

    /// Closes the client's reading side (`shutdown(SHUT_RD)`): the server's writes fail from then
    /// on.
    public func closeInput() throws {
        guard shutdown(fd, Int32(SHUT_RD)) == 0 else { throw Failure.closed }
    }

    // MARK: Blocking reads

    /// The next line (without `\n`), waiting at most `timeout` seconds; throws
    /// ``Failure/closed`` when the peer closed the connection first.
    public func readLine(timeout: Double = 10, what: String = "a line") throws -> String {
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
    public func readJSON(timeout: Double = 10, what: String, until match: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let line = try readLine(timeout: max(deadline.timeIntervalSinceNow, 0.001), what: what)
            if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], match(object) {
                return object
            }
        }
    }

    /// Everything the peer sends until it closes the connection, within `timeout` seconds; for a
    /// client that reads nothing until the server is done.
    public func readToEnd(timeout: Double = 10) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var received = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure.timeout("the end of the connection") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(remaining * 1000)) == 0 { throw Failure.timeout("the end of the connection") }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return received }
            guard count > 0 else { throw Failure.closed }
            received += chunk[..<count]
        }
    }

    /// Whether the peer has closed the connection (after reading what is left), within `timeout`.
    public func isClosedByPeer(timeout: Double = 5) -> Bool {
        PeerClose.wait(on: fd, timeout: timeout)
    }

    /// Sends `command` as one line to the line-command control socket at `path` (a virtual
    /// card's, the emulated PN532's) and returns its JSON answer, which must say `"ok": true`;
    /// `peer` names the socket's owner in errors.
    @discardableResult
    public static func command(_ command: String, at path: String, peer: String, timeout: Double = 15) throws -> [String: Any] {
        let control = try LineClient(path: path)
        try control.sendLine(command)
        let answer = try control.readLine(timeout: timeout, what: "\(peer)'s answer to \(command)")
        guard let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any], object["ok"] as? Bool == true else {
            throw Failure.refused(peer: peer, command: command, answer: answer)
        }
        return object
    }

    // MARK: Reads for the concurrency pool

    /// The next line without its newline, or `nil` once the server closed the connection (or
    /// reset it). Throws ``DeadlineExceeded`` when no whole line came within `timeout`. Waits on a
    /// thread of its own.
    public func nextLine(timeout: Duration = LineClient.readTimeout, waitingFor what: String = "a line from the server") async throws
        -> String?
    {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return try await offThePool {
            do {
                return try self.readLine(timeout: seconds, what: what)
            } catch Failure.closed {
                return nil
            } catch Failure.timeout(_) {
                throw DeadlineExceeded(what: what, seconds: Double(timeout.components.seconds))
            }
        }
    }

    /// The next line decoded as `type`; throws ``ClosedEarly`` if the connection closed.
    public func read<Value: Decodable>(_ type: Value.Type) async throws -> Value {
        guard let line = try await nextLine() else { throw ClosedEarly() }
        return try NDJSON.decode(type, from: Data(line.utf8))
    }

    /// Sends a request line and decodes the answer as a response with `Result`.
    public func call<Result: Decodable & Sendable>(
        _ text: String, expecting: Result.Type = JSONRPCNoResult.self
    ) async throws -> JSONRPCResponse<Result> {
        try sendLine(text)
        return try await read(JSONRPCResponse<Result>.self)
    }
}
