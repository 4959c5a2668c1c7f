import Logging
import NFCBackend
import PCSCBackend
import PassTapCore

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
