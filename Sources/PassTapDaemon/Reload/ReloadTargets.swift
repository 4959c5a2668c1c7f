import Logging
import NFCBackend
import PCSCBackend
import PassTapCore
import PassTapServer

/// Makes the daemon's reader backends from a configuration, for the start and for reloads.
struct BackendFactory: Sendable {
    /// Every backend the daemon can run, in start order.
    static let names: [ReaderID.Backend] = [.pcsc, .nfc]

    let tapHandler: any TapHandler
    let events: EventSink
    let logger: Logger

    /// The backend `name` as `configuration` sets it up, or `nil` when its section is disabled.
    func make(_ name: ReaderID.Backend, for configuration: Configuration) -> (any ReaderBackend)? {
        guard configuration.section(name).enabled else { return nil }
        switch name {
        case .pcsc:
            return PCSCReaderBackend(configuration: configuration.section(.pcsc), tapHandler: tapHandler, events: events, logger: logger)
        case .nfc:
            return NFCReaderBackend(configuration: configuration, tapHandler: tapHandler, events: events, logger: logger)
        default:
            return nil
        }
    }
}

/// The running components a reload hands new settings to, besides the ``LiveConfiguration`` the
/// tap coordinator reads: the log level, the event hub's bounds, the socket server, and the
/// reader backends.
struct ReloadTargets: Sendable {
    let logLevel: LogLevelSetting?
    let hub: EventHub
    let server: SocketServer
    let backends: ReaderBackends
    let factory: BackendFactory
    /// How long a backend being restarted may take to stop its threads.
    let deadline: Duration

    /// Puts `plan` in force; `old` is the configuration it replaces.
    func apply(_ plan: ReloadPlan, old: Configuration) async {
        let new = plan.effective
        logLevel?.level = new.logLevel
        if new.events.buffer != old.events.buffer || new.events.bufferBytes != old.events.bufferBytes {
            hub.resize(capacity: new.events.buffer, maximumBytes: new.events.bufferBytes)
        }
        if new.events.clientQueue != old.events.clientQueue {
            hub.setQueueLimit(new.events.clientQueue)
        }
        server.apply(SocketServerConfiguration(new))
        // A backend whose settings changed is stopped (its readers go, with reader.removed) and
        // started again with the new ones (they come back with reader.added); one newly enabled
        // is started, one disabled stopped.
        for name in BackendFactory.names where ReloadPlan.backendDiffers(name, old: old, new: new) {
            factory.logger.notice(
                "restarting a reader backend for the reloaded config",
                metadata: ["backend": "\(name)", "backend.enabled": "\(new.section(name).enabled)"])
            await backends.replace(name, with: factory.make(name, for: new), deadline: deadline)
        }
    }
}
