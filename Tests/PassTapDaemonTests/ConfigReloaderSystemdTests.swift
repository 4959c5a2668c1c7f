import ForwardSettings
import Foundation
import Logging
import PassTapCore
import PassTapTestNetwork
import PassTapTestSupport
import Testing

@testable import PassTapDaemon

/// What systemd sees of a reload, through a real datagram socket posing as `$NOTIFY_SOCKET`:
/// `RELOADING=1`, then `READY=1` and the daemon's usual status line, whatever the outcome (issue
/// 20: the status stayed "config reloaded"), and no `READY=1` once shutdown began.
@Suite(.timeLimit(.minutes(1))) struct ConfigReloaderSystemdTests {
    static let usual = "2 readers (2 usable), 1 client, no tap yet"

    /// Tells the notifier that shutdown began, in the middle of a reload (a SIGTERM then).
    struct StopsMidway: ConfigurationObserver {
        let notifier: SystemdNotifier
        func configurationChanged(from old: Configuration, to new: Configuration) { notifier.stopping() }
    }

    static func withFile(_ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passtap-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("passtapd.toml").path
        try "[log]\nlevel = \"info\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        try await body(file)
    }

    @Test func anAppliedAndARefusedReloadEachEndWithReadyAndTheUsualStatus() async throws {
        try await Self.withFile { file in
            let systemd = try NotifySocketListener()
            let notifier = SystemdNotifier(socket: NotifySocket(environment: ["NOTIFY_SOCKET": systemd.path])) { Self.usual }
            let live = LiveConfiguration(try ConfigLoader.load(path: file))
            let reloader = ConfigReloader(
                path: file, live: live, observers: [], events: EventSink { _, _, _ in }, notifier: notifier, logger: Logger(label: "test"))
            notifier.ready()
            #expect(systemd.drain() == ["READY=1", "STATUS=\(Self.usual)"])

            try "[log]\nlevel = \"debug\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            guard case .reloaded = await reloader.reload() else { throw CancellationError() }
            #expect(systemd.drain() == ["RELOADING=1", "READY=1", "STATUS=\(Self.usual)"])

            try "[log]\nlevel = \"loud\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            guard case .rejected = await reloader.reload() else { throw CancellationError() }
            #expect(systemd.drain() == ["RELOADING=1", "READY=1", "STATUS=\(Self.usual)"])
        }
    }

    @Test func aReloadThatEndsAfterShutdownBeganSendsNoReady() async throws {
        try await Self.withFile { file in
            let systemd = try NotifySocketListener()
            let notifier = SystemdNotifier(socket: NotifySocket(environment: ["NOTIFY_SOCKET": systemd.path])) { Self.usual }
            let live = LiveConfiguration(try ConfigLoader.load(path: file))
            let reloader = ConfigReloader(
                path: file, live: live, observers: [StopsMidway(notifier: notifier)], events: EventSink { _, _, _ in }, notifier: notifier,
                logger: Logger(label: "test"))
            notifier.ready()
            try "[log]\nlevel = \"debug\"\n".write(toFile: file, atomically: true, encoding: .utf8)
            guard case .reloaded = await reloader.reload() else { throw CancellationError() }
            #expect(systemd.drain() == ["READY=1", "STATUS=\(Self.usual)", "RELOADING=1", "STOPPING=1"])
        }
    }
}
