import ForwardSettings
import Foundation
import Logging
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
@testable import PassTapForward
import ServiceLifecycle
import Synchronization

/// A forwarder over the in-memory outbox, scripted sinks and a manual clock, run in a service
/// group of its own.
final class ForwarderRig: Sendable {
    let outbox: MemoryOutbox
    let clock: TestClock
    let sinks: ScriptedSinkFactory
    let live: LiveConfiguration
    let announced: Recorded<ForwardDropped>
    let metrics: RecordingForwardMetrics
    let forwarder: Forwarder
    /// One entry per time the forwarder asked for the outbox.
    let opens: Recorded<Void>
    private let group: ServiceGroup
    private let running = Mutex<Task<Void, any Error>?>(nil)

    /// A rig whose config has `sinks`; the first `failingOpens` opens of the outbox fail.
    init(
        _ configurations: [Configuration.ForwardSinkConfiguration], scripts: [String: [ScriptedSink.Step]] = [:], batchLimit: Int = 1,
        keepHours: Int = 24, failingOpens: Int = 0
    ) {
        let sinks = ScriptedSinkFactory(batchLimit: batchLimit, scripts: scripts)
        let live = LiveConfiguration(Self.configuration(configurations, keepHours: keepHours))
        let logger = Logger(label: "ForwarderTests", factory: { _ in SwiftLogNoOpLogHandler() })
        let (outbox, clock, announced, metrics, opens) = (MemoryOutbox(), TestClock(date: Date(timeIntervalSince1970: 1_795_000_000)), Recorded<ForwardDropped>(), RecordingForwardMetrics(), Recorded<Void>())
        (self.sinks, self.live, self.outbox, self.clock, self.announced, self.metrics, self.opens) = (sinks, live, outbox, clock, announced, metrics, opens)
        let forwarder = Forwarder(
            live: live,
            openOutbox: { () async throws(OutboxError) -> any OutboxStorage in
                opens.append(())
                guard opens.values.count > failingOpens else { throw .storage("cannot open /var/lib/passtap/outbox.sqlite: disk I/O error") }
                return outbox
            },
            makeSink: { sinks.make($0) },
            events: EventSink { kind, _, payload in
                if kind == .forwardDropped, case .forwardDropped(let dropped) = payload { announced.append(dropped) }
            },
            clock: DaemonClock(date: { clock.date }, sleep: { try await clock.sleep(for: $0) }), random: ConstantRandom(bits: .max),
            metrics: metrics, metricsInterval: .seconds(5),
            logger: logger)
        self.forwarder = forwarder
        group = ServiceGroup(services: [forwarder], logger: logger)
    }

    static func configuration(_ sinks: [Configuration.ForwardSinkConfiguration], keepHours: Int = 24) -> Configuration {
        var configuration = Configuration()
        configuration.forward.source = "till-3"
        configuration.forward.removedSinkKeepHours = keepHours
        for sink in sinks {
            switch sink {
            case .webhook(let webhook): configuration.forward.webhooks.append(webhook)
            case .postgres(let postgres): configuration.forward.postgres.append(postgres)
            }
        }
        return configuration
    }

    static func webhook(_ name: String, kinds: Set<EventKind> = [.readResult]) -> Configuration.ForwardSinkConfiguration {
        .webhook(
            Configuration.ForwardWebhook(
                name: name, url: URL(string: "https://\(name).example.com/taps")!, secretFile: "/etc/passtap/forward/\(name).secret",
                secret: WebhookSecret(key: Array(repeating: 7, count: 32)), kinds: kinds))
    }

    static func postgres(_ name: String, kinds: Set<EventKind> = [.readResult]) -> Configuration.ForwardSinkConfiguration {
        .postgres(Configuration.ForwardPostgres(name: name, host: "/run/postgresql", database: "passtap", user: "passtap", kinds: kinds))
    }

    /// Runs the forwarder, and returns once it has made `sinks` sinks (after setting them in the
    /// outbox).
    func start(sinks count: Int) async throws {
        let group = group
        running.withLock { $0 = Task { try await group.run() } }
        let sinks = sinks
        _ = try await withDeadline("\(count) sinks made") { await sinks.made.wait(count: count) }
    }

    /// Returns once the forwarder's start, or reload, under way has finished.
    func settled() async {
        await forwarder.gate.run {}
    }

    /// Stops it (graceful shutdown), within a deadline.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        if let task = running.withLock({ $0 }) { try await value(of: task, "the forwarder's stop") }
    }

    /// Stores an event of `kind` now and tells the forwarder, as the writer does.
    @discardableResult
    func publish(_ kind: EventKind = .readResult) async -> OutboxItem {
        let item = await outbox.append(kind, at: clock.date)
        forwarder.eventsCommitted()
        return item
    }

    /// Puts `sinks` in force, as a reload does.
    func reload(to sinks: [Configuration.ForwardSinkConfiguration], keepHours: Int = 24) async {
        let new = Self.configuration(sinks, keepHours: keepHours)
        let old = live.replace(with: new)
        await forwarder.configurationChanged(from: old, to: new)
    }

    /// One sink's line of `forward.status`.
    func status(of sink: String) async -> ForwardSinkStatus? {
        await forwarder.status().sinks.first { $0.name == sink }
    }
}
