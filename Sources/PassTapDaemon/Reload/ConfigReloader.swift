import ForwardSettings
import Logging
package import PassTapCore
public import ServiceLifecycle
import UnixSignals

/// Reloads the config file on SIGHUP (`systemctl reload passtapd`, `kill -HUP`): reads it,
/// validates all of it with the same function as `passtapd --check-config`, and only then puts it
/// in force: in the ``LiveConfiguration``, then in each ``ConfigurationObserver``, in the order
/// the daemon lists them. Key files are also held to the group of the socket as it was bound
/// (``LiveConfiguration/bound``), which a reload cannot change
/// (``Daemon/loadConfiguration(path:listening:)``). A file that does not validate is refused: the
/// last good configuration keeps running, the log names the file, line and key, and
/// `config.rejected` says the same.
///
/// Reloads run one at a time: a SIGHUP during a reload queues one more (however many arrive),
/// never a second reload at once. Each reload begins with ``SystemdNotifier/reloading()`` and
/// ends with ``SystemdNotifier/reloaded()``, whatever the outcome.
public final class ConfigReloader: Service, Sendable {
    /// What one reload did.
    public enum Outcome: Sendable {
        /// The new configuration is in force.
        case reloaded(ReloadPlan)
        /// The file was refused; nothing changed.
        case rejected(ConfigurationError)
    }

    private let path: String
    private let live: LiveConfiguration
    private let load: @Sendable (String, _ listening: Configuration.Socket) throws(ConfigurationError) -> Configuration
    private let reserve: @Sendable (FileDescriptorBudget, String) throws(FileDescriptorBudgetError) -> Void
    private let observers: [any ConfigurationObserver]
    private let events: EventSink
    private let notifier: SystemdNotifier?
    private let logger: Logger

    /// A reloader of the file at `path` into `live`.
    /// - Parameters:
    ///   - load: reads and validates a file for a daemon whose socket was bound with the given
    ///     `[socket]` (`live`'s ``LiveConfiguration/bound``; ``Daemon/loadConfiguration(path:listening:)``,
    ///     the function `--check-config` runs).
    ///   - reserve: makes the open-file limit cover the reloaded configuration's file descriptor
    ///     budget (a reload may turn a reader backend on), or throws
    ///     (``Daemon/reserveFileDescriptors(for:file:limit:setSoft:)`` by default).
    ///   - observers: the components that act on a change (event hub, socket server, metrics,
    ///     backends), told in this order once `live` holds the new configuration.
    ///   - events: where `config.reloaded` and `config.rejected` go.
    ///   - notifier: what systemd is told; `nil` tells it nothing.
    package init(
        path: String, live: LiveConfiguration,
        load: @escaping @Sendable (String, Configuration.Socket) throws(ConfigurationError) -> Configuration = {
            path, listening throws(ConfigurationError) in
            try Daemon.loadConfiguration(path: path, listening: listening)
        },
        reserve: @escaping @Sendable (FileDescriptorBudget, String) throws(FileDescriptorBudgetError) -> Void = {
            budget, path throws(FileDescriptorBudgetError) in _ = try Daemon.reserveFileDescriptors(for: budget, file: path)
        },
        observers: [any ConfigurationObserver], events: EventSink, notifier: SystemdNotifier?, logger: Logger
    ) {
        self.path = path
        self.live = live
        self.load = load
        self.reserve = reserve
        self.observers = observers
        self.events = events
        self.notifier = notifier
        self.logger = logger
    }

    /// Reloads on every SIGHUP until graceful shutdown.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // At most one reload waits while one runs: SIGHUPs that arrive meanwhile fold into it.
        let (requests, request) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in signals { request.yield() }
                request.finish()
            }
            for await _ in requests.cancelOnGracefulShutdown() {
                await reload()
            }
            group.cancelAll()
        }
    }

    /// Reads, validates and (if valid) puts the file in force; publishes and logs the outcome.
    /// Called by ``run()`` (and tests) only, one at a time.
    @discardableResult
    package func reload() async -> Outcome {
        notifier?.reloading()
        defer { notifier?.reloaded() }
        logger.info("reloading the config", metadata: ["config.file": "\(path)"])
        // Reloads run one at a time: nothing replaces `live` between here and the replace below.
        let old = live.current
        let plan: ReloadPlan
        do {
            plan = try planWithinTheOpenFileLimit(old: old)
        } catch {
            logger.error(
                "config reload refused; the last good config keeps running",
                metadata: [
                    "config.file": "\(error.file)", "config.line": "\(error.line.map(String.init) ?? "unknown")",
                    "config.key": "\(error.keyPath)", "config.problem": "\(error.problem)",
                ])
            events.publish(
                .configRejected, nil, .configRejected(ConfigRejected(file: error.file, line: error.line, key: error.keyPath, problem: error.problem)))
            return .rejected(error)
        }
        live.replace(with: plan.effective)
        for observer in observers {
            await observer.configurationChanged(from: old, to: plan.effective)
        }
        if !plan.restartRequired.isEmpty {
            logger.warning(
                "config reloaded, but these settings need a restart; they keep their running values",
                metadata: ["config.file": "\(path)", "config.restart_required": "\(plan.restartRequired.joined(separator: ","))"])
        }
        logger.notice(
            "config reloaded",
            metadata: [
                "config.file": "\(path)", "config.changed": "\(plan.changed.joined(separator: ","))",
                "config.restart_required": "\(plan.restartRequired.joined(separator: ","))",
            ])
        events.publish(
            .configReloaded, nil, .configReloaded(ConfigReloaded(file: path, changed: plan.changed, restartRequired: plan.restartRequired)))
        return .reloaded(plan)
    }

    /// The plan from `old` to the file, validated; refused too when its sinks need the running
    /// outbox and its folder is missing or not writable, or when what would run (restart-only
    /// settings keep their values) needs more file descriptors than the open-file limit can give.
    private func planWithinTheOpenFileLimit(old: Configuration) throws(ConfigurationError) -> ReloadPlan {
        let loaded = try load(path, live.bound.socket)
        // The file's sinks would open (or go on using) the running outbox: refused, as at start,
        // when its folder is missing or not writable.
        try Daemon.checkOutboxFolder(for: loaded, file: path, outbox: old.forward.outbox)
        let plan = ReloadPlan(old: old, new: loaded)
        do {
            try reserve(FileDescriptorBudget(plan.effective), path)
        } catch {
            throw ConfigurationError(file: path, line: nil, keyPath: "", problem: error.problem)
        }
        return plan
    }
}
