import Foundation
import PassTapTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A Unix datagram socket posing as systemd's `$NOTIFY_SOCKET`: bound at a path, or in the
/// abstract namespace for a name starting with `@`, as systemd documents it. Built here on its
/// own, not with the daemon's code, so the tests check the daemon against the protocol.
public final class NotifySocketListener: @unchecked Sendable {
    /// The `$NOTIFY_SOCKET` value that reaches this socket.
    public let path: String
    /// -1 once closed: a throwing init that closed it must not have `deinit` close that number
    /// again (by then it may be another part of the process's file).
    private var descriptor: Int32

    /// Binds `path`; a filesystem path must not exist yet.
    public init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            descriptor = -1
            throw POSIXError(.ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0 else {
            let error = errno
            close(descriptor)
            descriptor = -1
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
    }

    /// A listener at a new path in the temporary folder.
    public convenience init() throws {
        try self.init(path: NSTemporaryDirectory() + "passtap-notify-\(UUID().uuidString.prefix(8))")
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !path.hasPrefix("@") { unlink(path) }
    }

    /// The next datagram, waiting up to `seconds`; `nil` when none came.
    public func receive(seconds: Int = 10) -> String? {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// The next datagram, waited for on a thread of its own (never on the concurrency pool).
    public func next(seconds: Int = 10) async -> String? {
        (try? await offThePool { self.receive(seconds: seconds) }) ?? nil
    }

    /// Every datagram already there, without waiting.
    public func drain() -> [String] {
        var found: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count >= 0 else { return found }
            found.append(String(decoding: buffer.prefix(count), as: UTF8.self))
        }
    }
}
