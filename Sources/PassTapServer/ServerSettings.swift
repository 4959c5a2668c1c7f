import Synchronization

/// The ``SocketServerConfiguration`` a running ``SocketServer`` reads while it serves, swapped
/// whole by a reload (``SocketServer/apply(_:)``).
///
/// What is read at each use: `[access]` (each new connection's roles), `allow_transmit`, the VAS
/// merchants `vas.read` may name, `vas_reads_per_uid`, `client_queue` (each new subscription),
/// `max_clients_per_uid` and `idle_timeout_ms` (each new connection). The socket's path, mode and
/// group and `max_clients` are fixed when the listener starts: a reload cannot change them.
final class ServerSettings: Sendable {
    private let value: Mutex<SocketServerConfiguration>

    init(_ configuration: SocketServerConfiguration) {
        value = Mutex(configuration)
    }

    /// A snapshot of the settings in force.
    var current: SocketServerConfiguration { value.withLock { $0 } }

    /// Puts `configuration` in force; returns the one it replaces.
    @discardableResult
    func replace(with configuration: SocketServerConfiguration) -> SocketServerConfiguration {
        value.withLock { held in
            let old = held
            held = configuration
            return old
        }
    }
}
