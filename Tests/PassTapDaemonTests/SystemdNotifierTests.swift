import Foundation
import PassTapTestNetwork
import PassTapTestSupport
import Synchronization
import Testing

@testable import PassTapDaemon

/// The one object that talks to systemd, against a real datagram socket posing as
/// `$NOTIFY_SOCKET` (``NotifySocketListener``): the order of what it sends, whoever asks.
@Suite(.timeLimit(.minutes(1))) struct SystemdNotifierTests {
    static let usual = "1 reader (1 usable), 0 clients, no tap yet"

    /// A status line a test can change.
    final class Line: Sendable {
        let text = Mutex(SystemdNotifierTests.usual)
    }

    /// A notifier to `systemd` whose status line is `line`'s text.
    static func notifier(_ systemd: NotifySocketListener, line: Line = Line()) -> SystemdNotifier {
        SystemdNotifier(socket: NotifySocket(environment: ["NOTIFY_SOCKET": systemd.path])) { line.text.withLock { $0 } }
    }

    @Test func aReloadIsBracketedByReloadingAndReadyAndEndsWithTheUsualStatus() throws {
        let systemd = try NotifySocketListener()
        let notifier = Self.notifier(systemd)
        notifier.ready()
        notifier.reloading()
        notifier.reloaded()
        notifier.stopping()
        #expect(systemd.drain() == ["READY=1", "STATUS=\(Self.usual)", "RELOADING=1", "READY=1", "STATUS=\(Self.usual)", "STOPPING=1"])
    }

    /// No `READY=1` (nor anything else) once shutdown began: not from start-up, not from a reload
    /// that ends after it.
    @Test func nothingFollowsStopping() throws {
        let systemd = try NotifySocketListener()
        let notifier = Self.notifier(systemd)
        notifier.ready()
        notifier.reloading()
        notifier.stopping()
        notifier.reloaded()
        notifier.ready()
        notifier.watchdog()
        notifier.refreshStatus()
        notifier.stopping()
        #expect(systemd.drain() == ["READY=1", "STATUS=\(Self.usual)", "RELOADING=1", "STOPPING=1"])

        let early = try NotifySocketListener()
        let stoppedEarly = Self.notifier(early)
        stoppedEarly.stopping()
        stoppedEarly.ready()
        #expect(early.drain() == ["STOPPING=1"])
    }

    /// A SIGHUP during start-up: systemd still waits for the start's `READY=1`, which must come
    /// only once the socket listens.
    @Test func aReloadBeforeStartUpIsOverSendsNothing() throws {
        let systemd = try NotifySocketListener()
        let notifier = Self.notifier(systemd)
        notifier.reloading()
        notifier.reloaded()
        notifier.refreshStatus()
        #expect(systemd.drain() == [])
        notifier.ready()
        #expect(systemd.drain() == ["READY=1", "STATUS=\(Self.usual)"])
    }

    @Test func theStatusIsSentWhenItChangesOnly() throws {
        let systemd = try NotifySocketListener()
        let line = Line()
        let notifier = Self.notifier(systemd, line: line)
        notifier.ready()
        notifier.refreshStatus()
        line.text.withLock { $0 = "1 reader (1 usable), 1 client, no tap yet" }
        notifier.refreshStatus()
        notifier.refreshStatus()
        #expect(systemd.drain() == ["READY=1", "STATUS=\(Self.usual)", "STATUS=1 reader (1 usable), 1 client, no tap yet"])
    }
}
