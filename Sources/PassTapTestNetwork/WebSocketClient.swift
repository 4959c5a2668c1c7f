import Foundation
import PassTapProtocol
import PassTapTestSupport

#if canImport(Glibc)
import Glibc
#endif
// This target also holds RawHTTP, on SwiftNIO: with NIO's C modules in the module, the compiler
// finds `sockaddr_in` in CNIOLinux (as SockDiag's comment tells), whose members then need it.
#if canImport(CNIOLinux)
import CNIOLinux
#endif

/// The one WebSocket client of the tests, written from RFC 6455 over a plain TCP socket (not with
/// NIOWebSocket, which passtapd uses): the upgrade request with the headers a test chooses
/// (`Host`, `Origin`), masked frames out of any length, frames in with a deadline, and `/rpc`'s
/// handshake (`docs/web.md`). Also sends plain HTTP requests, for the handshake refusals.
///
/// It blocks, as a rig on a thread of its own may; a test on the concurrency pool wraps its reads
/// in ``offThePool(_:)``. One task or thread uses a client at a time. (Test code only: the daemon
/// never blocks like this.)
public final class WebSocketClient: @unchecked Sendable {
    /// What came from the server.
    public enum Message: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
        /// A close frame, with its status code (`nil` when it had none).
        case close(UInt16?)
        case ping([UInt8])
        case pong([UInt8])
    }

    public enum Failure: Error, CustomStringConvertible {
        case connect(port: Int, errno: Int32)
        case timeout(String)
        case closed
        case refused(status: Int, head: String)
        /// A frame of another kind, or text that is no JSON object, where JSON was expected.
        case unexpected(String)

        public var description: String {
            switch self {
            case .connect(let port, let code): return "cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(code)))"
            case .timeout(let what): return "timed out waiting for \(what)"
            case .closed: return "the server closed the connection"
            case .refused(let status, let head): return "the upgrade was refused with \(status): \(head)"
            case .unexpected(let what): return what
            }
        }
    }

    /// RFC 6455 §1.3's example key, and the `Sec-WebSocket-Accept` it must get.
    public static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    public static let expectedAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port` (no request sent yet).
    public init(port: Int) throws {
        // Connected through a local first, as LineClient is: `deinit` also runs when a fully
        // initialised class throws, and must not close this number a second time.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw Failure.connect(port: port, errno: code)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Connects to `port` and upgrades `path`, sending `host` (default `127.0.0.1:PORT`) and
    /// `origin` (none when `nil`). Throws ``Failure/refused(status:head:)`` unless the answer is
    /// 101 with the right `Sec-WebSocket-Accept`.
    public static func open(port: Int, path: String = "/rpc", host: String? = nil, origin: String? = nil) throws -> WebSocketClient {
        let client = try WebSocketClient(port: port)
        let (status, head) = try client.upgrade(path: path, host: host ?? "127.0.0.1:\(port)", origin: origin)
        guard status == 101, head.lowercased().contains("sec-websocket-accept: \(expectedAccept.lowercased())") else {
            throw Failure.refused(status: status, head: head)
        }
        return client
    }

    /// Sends the upgrade request and returns the answer's status and head.
    public func upgrade(path: String, host: String, origin: String?) throws -> (status: Int, head: String) {
        try send(Array(Self.upgradeRequest(path: path, host: host, origin: origin).utf8))
        return try readHead()
    }

    /// The upgrade request for `path` with `host` and `origin` (none when `nil`), whole: for a
    /// test that sends it through another client, or changed.
    public static func upgradeRequest(path: String = "/rpc", host: String, origin: String? = nil) -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        return request + "\r\n"
    }

    /// Sends a plain `GET path` with `host` and returns the answer's status and head.
    public func get(_ path: String, host: String) throws -> (status: Int, head: String) {
        try send(Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
        return try readHead()
    }

    /// Sends one masked text frame (RFC 6455 §5.2, §5.3), of any length.
    public func sendText(_ text: String) throws {
        try sendFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    /// Sends one masked frame with `opcode` (0x1 text, 0x2 binary, 0x8 close, 0x9 ping...).
    public func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) throws {
        try send(Self.frame(opcode: opcode, payload: payload, fin: fin))
    }

    /// The bytes of one masked frame with `opcode` and `payload`, as a client sends it.
    public static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// What ``trySend(_:timeout:)`` did.
    public enum SendOutcome: Equatable {
        /// This many bytes went out (perhaps fewer than given).
        case sent(Int)
        /// The socket took nothing within the timeout: the server is not reading.
        case wouldBlock
        /// The server closed or reset the connection.
        case closed
    }

    /// Sends what the socket takes of `bytes` within `timeout` seconds, without blocking longer:
    /// for floods, where the server may stop reading.
    public func trySend(_ bytes: [UInt8], timeout: Double) -> SendOutcome {
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return .wouldBlock }
        guard poller.revents & Int16(POLLERR | POLLHUP) == 0 else { return .closed }
        let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        if written > 0 { return .sent(written) }
        return written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .wouldBlock : .closed
    }

    /// The next frame from the server, waiting at most `timeout` seconds.
    public func read(timeout: Double = 10, what: String = "a frame") throws -> Message {
        let deadline = Date().addingTimeInterval(timeout)
        try fill(2, before: deadline, what: what)
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var headerLength = 2
        if length == 126 {
            try fill(4, before: deadline, what: what)
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            headerLength = 4
        } else if length == 127 {
            try fill(10, before: deadline, what: what)
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            headerLength = 10
        }
        try fill(headerLength + length, before: deadline, what: what)
        let payload = Array(buffer[headerLength..<(headerLength + length)])
        buffer.removeFirst(headerLength + length)
        switch opcode {
        case 0x1: return .text(String(decoding: payload, as: UTF8.self))
        case 0x2: return .binary(payload)
        case 0x8: return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
        case 0x9: return .ping(payload)
        default: return .pong(payload)
        }
    }

    /// The next text message as JSON; throws if a close or another kind of frame comes instead.
    public func readJSON(timeout: Double = 10, what: String) throws -> [String: Any] {
        let message = try read(timeout: timeout, what: what)
        guard case .text(let text) = message, let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failure.unexpected("expected \(what), got \(message)")
        }
        return object
    }

    /// Reads JSON messages until one satisfies `match`, within `timeout` seconds overall.
    public func readJSON(timeout: Double = 10, what: String, until match: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let object = try readJSON(timeout: max(deadline.timeIntervalSinceNow, 0.001), what: what)
            if match(object) { return object }
        }
    }

    /// Sends `request` (one JSON-RPC object as text) and returns the answer with its `id`.
    public func call(_ request: String, id: Int, what: String) throws -> [String: Any] {
        try sendText(request)
        return try readJSON(what: what) { $0["id"] as? Int == id }
    }

    /// What ``handshake(name:secret:id:)`` came to: whether passtapd's proof checked out with
    /// `secret`, and the last answer (`auth.prove`'s, or `auth.hello`'s when it failed there).
    public struct Handshake {
        public var serverProved: Bool
        public var answer: [String: Any]
    }

    /// Runs `/rpc`'s handshake (`auth.hello`, then `auth.prove`; `docs/web.md`) as a client that
    /// holds `secret` for the token `name`. Unlike passtap.js it sends its proof even when
    /// passtapd's did not check out, so tests can see how passtapd judges a wrong secret.
    public func handshake(name: String, secret: String, id: Int = 1) throws -> Handshake {
        let clientNonce = WebAuthProof.makeNonce()
        let hello = try call(
            Self.request(id: id, method: "auth.hello", AuthHelloParams(token: name, nonce: WebAuthProof.hex(clientNonce))), id: id,
            what: "the auth.hello answer")
        guard let result = hello["result"] as? [String: Any], let nonce = (result["nonce"] as? String).flatMap(WebAuthProof.bytes(hex:)),
            let proof = (result["proof"] as? String).flatMap(WebAuthProof.bytes(hex:))
        else { return Handshake(serverProved: false, answer: hello) }
        let proofs = WebAuthProof(name: name, clientNonce: clientNonce, serverNonce: nonce)
        let answer = try call(
            Self.request(id: id + 1, method: "auth.prove", AuthProveParams(proof: WebAuthProof.hex(proofs.proof(.client, secret: Array(secret.utf8))))),
            id: id + 1, what: "the auth.prove answer")
        return Handshake(serverProved: proofs.verify(proof, .server, secret: Array(secret.utf8)), answer: answer)
    }

    /// A JSON-RPC request line with `params`, encoded by Codable.
    public static func request(id: Int, method: String, _ params: some Encodable & Sendable) throws -> String {
        String(decoding: try JSONEncoder().encode(JSONRPCRequest(id: .number(Int64(id)), method: method, params: params)), as: UTF8.self)
    }

    /// Whether the server closed the TCP connection (after what is left), within `timeout`.
    public func isClosedByPeer(timeout: Double = 10) -> Bool {
        PeerClose.wait(on: fd, timeout: timeout)
    }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure.closed }
            offset += written
        }
    }

    private func readHead() throws -> (status: Int, head: String) {
        let deadline = Date().addingTimeInterval(10)
        while true {
            if let end = buffer.indices.dropLast(3).first(where: { buffer[$0..<($0 + 4)] == [13, 10, 13, 10] }) {
                let head = String(decoding: buffer[..<(end + 4)], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
                return (status, head)
            }
            try fill(buffer.count + 1, before: deadline, what: "an HTTP answer")
        }
    }

    /// Reads until `count` bytes are buffered.
    private func fill(_ count: Int, before deadline: Date, what: String) throws {
        while buffer.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure.timeout(what) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(remaining * 1000)) == 0 { throw Failure.timeout(what) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let received = recv(fd, &chunk, chunk.count, 0)
            guard received > 0 else { throw Failure.closed }
            buffer += chunk[..<received]
        }
    }
}
