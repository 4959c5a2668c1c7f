import Foundation
import Testing

@testable import PassTapDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The notifier against a real Unix datagram socket posing as systemd's `$NOTIFY_SOCKET`.
@Suite(.timeLimit(.minutes(1))) struct SystemdNotifierTests {
    /// A bound datagram socket at `path` (abstract when it starts with `@`).
    final class FakeSystemd: @unchecked Sendable {
        let descriptor: Int32

        init(path: String) throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            guard let found = SystemdNotifier.socketAddress(path) else { throw POSIXError(.ENAMETOOLONG) }
            var address = found.0
            let length = found.1
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
            guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        /// The next datagram (waits up to 5 s).
        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
        }

        /// Every datagram already there, without waiting.
        func drain() -> [String] {
            var found: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard count >= 0 else { return found }
                found.append(String(decoding: buffer.prefix(count), as: UTF8.self))
            }
        }

        /// The next datagram, waited for on a thread of its own (never on the concurrency pool).
        func next() async -> String? {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.receive()) }.start()
            }
        }
    }

    @Test func eachMessageArrivesAsItsLinesInOrder() throws {
        let path = NSTemporaryDirectory() + "passtap-notify-\(UUID().uuidString.prefix(8))"
        let systemd = try FakeSystemd(path: path)
        defer { unlink(path) }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        #expect(notifier.send(.ready, .status("1 reader\nlast tap 10:00")))
        #expect(notifier.send(.watchdog))
        #expect(notifier.send(.reloading))
        #expect(notifier.send(.stopping))
        #expect(systemd.receive() == "READY=1\nSTATUS=1 reader last tap 10:00")
        #expect(systemd.receive() == "WATCHDOG=1")
        #expect(systemd.receive() == "RELOADING=1")
        #expect(systemd.receive() == "STOPPING=1")
    }

    @Test func anAbstractSocketIsReached() throws {
        let name = "@passtap-notify-\(UUID().uuidString.prefix(8))"
        let systemd = try FakeSystemd(path: name)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]).send(.ready))
        #expect(systemd.receive() == "READY=1")
    }

    @Test func withoutNotifySocketNothingIsSent() {
        #expect(SystemdNotifier(environment: [:]).socketPath == nil)
        #expect(!SystemdNotifier(environment: [:]).send(.ready))
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]).send(.ready))
    }
}
