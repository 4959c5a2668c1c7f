import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// systemd's `$NOTIFY_SOCKET`, and how a datagram is written to it (sd_notify(3)'s protocol,
/// written here: one datagram of `KEY=VALUE` lines to a Unix datagram socket; a path starting with
/// `@` is in the abstract namespace). Without `$NOTIFY_SOCKET` (not started by systemd with
/// `Type=notify`) it sends nothing.
///
/// Only ``SystemdNotifier`` sends through it: it decides what is said, and when.
package struct NotifySocket: Sendable {
    /// What one notification says.
    package enum Message: Sendable, Equatable {
        /// `READY=1`: the socket listens and the backends have started.
        case ready
        /// `RELOADING=1`: a reload began (`READY=1` ends it).
        case reloading
        /// `STOPPING=1`: shutdown began.
        case stopping
        /// `WATCHDOG=1`: the health check passed.
        case watchdog
        /// `STATUS=…`: one line for `systemctl status`, world-readable: never card data.
        case status(String)

        /// The datagram's line.
        var line: String {
            switch self {
            case .ready: return "READY=1"
            case .reloading: return "RELOADING=1"
            case .stopping: return "STOPPING=1"
            case .watchdog: return "WATCHDOG=1"
            case .status(let text):
                return "STATUS=" + text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : String($0) }.joined()
            }
        }
    }

    /// `$NOTIFY_SOCKET`, or `nil` when systemd did not set it.
    package let socketPath: String?

    /// The socket of `environment` (the process's by default).
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends `messages` in one datagram. Returns `false` when there is no socket or the send
    /// failed (systemd gone, say): the daemon goes on either way. Never blocks.
    @discardableResult
    package func send(_ messages: Message...) -> Bool {
        guard let socketPath, !messages.isEmpty, let found = Self.socketAddress(socketPath) else { return false }
        var address = found.0
        let length = found.1
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let datagram = Array(messages.map(\.line).joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, datagram, datagram.count, Int32(MSG_NOSIGNAL), $0, length) }
        }
        return sent == datagram.count
    }

    /// The address of the Unix socket at `path` (`@name`: the abstract namespace) and its length,
    /// or `nil` when the path does not fit.
    package static func socketAddress(_ path: String) -> (sockaddr_un, socklen_t)? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // A path's address counts its terminating zero; an abstract name's does not.
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1)))
    }
}
