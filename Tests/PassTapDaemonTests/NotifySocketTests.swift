import Foundation
import PassTapTestNetwork
import PassTapTestSupport
import Testing

@testable import PassTapDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The notify socket against a real Unix datagram socket posing as systemd's `$NOTIFY_SOCKET`
/// (``NotifySocketListener``, written apart from it).
@Suite(.timeLimit(.minutes(1))) struct NotifySocketTests {
    @Test func eachMessageArrivesAsItsLinesInOrder() throws {
        let systemd = try NotifySocketListener()
        let notifier = NotifySocket(environment: ["NOTIFY_SOCKET": systemd.path])
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
        let systemd = try NotifySocketListener(path: name)
        #expect(NotifySocket(environment: ["NOTIFY_SOCKET": name]).send(.ready))
        #expect(systemd.receive() == "READY=1")
    }

    @Test func withoutNotifySocketNothingIsSent() {
        #expect(NotifySocket(environment: [:]).socketPath == nil)
        #expect(!NotifySocket(environment: [:]).send(.ready))
        #expect(!NotifySocket(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]).send(.ready))
    }
}
