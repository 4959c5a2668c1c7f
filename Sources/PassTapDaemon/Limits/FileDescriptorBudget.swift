public import MetricsSettings
public import ForwardSettings
public import WebSettings
import NFCBackend
import NIOCore
import PCSCBackend
public import PassTapCore

/// How many file descriptors passtapd may hold at once under a configuration: one formula, a sum
/// of named terms, each from config keys or from what the daemon was measured to hold
/// (`docs/operations.md`, "File descriptors"). At start the daemon makes sure its open-file limit
/// (`RLIMIT_NOFILE`) covers the sum (``FileDescriptorLimit``).
///
/// Every listener is capped, so nothing a peer does can take more than its term: Unix-socket
/// clients by `[socket] max_clients`, metrics connections by `[metrics] max_connections`, web
/// connections by `[web] max_clients` twice (authenticated `/rpc` connections, and as many that
/// have not authenticated: pages and handshakes); forwarding sinks hold a
/// fixed number each.
public struct FileDescriptorBudget: Sendable, Hashable, CustomStringConvertible {
    /// One term of the sum.
    public struct Term: Sendable, Hashable {
        /// What it counts, with the keys it comes from: `[socket] max_clients`.
        public let name: String
        /// How many descriptors.
        public let count: Int
    }

    /// Always held: stdin, stdout and stderr, the Unix-socket and metrics listeners, the signal and Dispatch
    /// descriptors, with room for short-lived ones (the config and key files a reload reads,
    /// `/proc` and sysfs reads). An idle passtapd with both listeners and no reader held 14 plus
    /// its event loops' (measured on 2026-11-26).
    public static let fixedBase = 32
    /// Each NIO event loop's epoll, eventfd and timerfd; there is one loop per core.
    public static let perEventLoop = 3
    /// The PC/SC backend's own pcscd connections: its monitor's context, and its canceller's.
    public static let pcscContexts = 2
    /// Each PC/SC reader's context: one connection to pcscd (measured: 2 readers, 2 more).
    public static let perPCSCReader = 1
    /// The libnfc backend's own: libusb's context (its eventfd, timerfd and hotplug netlink socket),
    /// with room (counted from libusb's source, not measured: no USB reader on the test machine).
    public static let libnfcContext = 8
    /// Each libnfc device: its device node and libnfc's abort pipe (measured on the emulated
    /// PN532's pty: 3).
    public static let perLibNFCDevice = 3

    /// The web listener's own sockets (`[web] listen`), beside its `max_clients` connections: it
    /// holds both loopback addresses of its port (127.0.0.1 and [::1]).
    public static let webListener = 2
    /// The web listener's netlink socket, which asks the kernel who opened a connection (its
    /// connections that have not authenticated are counted per user).
    public static let webPeerOwner = 1

    /// The forwarding outbox, with any sink configured: SQLite's database file and its write-ahead
    /// log's `-wal` and `-shm` files.
    public static let outboxFiles = 3
    /// Each `[[forward.postgres]]` sink: its one connection.
    public static let perPostgresSink = 1
    /// Each `[[forward.webhooks]]` sink: its connection, and one more while a closed one is being
    /// replaced.
    public static let perWebhookSink = 2

    /// The terms, in the order the formula in `docs/operations.md` lists them.
    public let terms: [Term]

    /// The budget of `configuration` on a machine running `eventLoops` NIO event loops (NIO's
    /// shared group has one per core).
    public init(_ configuration: Configuration, eventLoops: Int = System.coreCount) {
        let metrics = configuration.metrics.listen == nil ? 0 : configuration.metrics.maxConnections
        let web = configuration.web.listen == nil ? 0 : Self.webListener + Self.webPeerOwner + 2 * configuration.web.maxClients
        let pcsc = configuration.section(.pcsc).enabled ? Self.pcscContexts + Self.perPCSCReader * PCSCReaderBackend.maximumReaders : 0
        let forward = configuration.forward
        let nfc = configuration.section(.nfc).enabled ? Self.libnfcContext + Self.perLibNFCDevice * Self.libnfcDevices(configuration.libnfc.devices) : 0
        terms = [
            Term(name: "base (\(Self.fixedBase) + \(Self.perEventLoop) per event loop, \(eventLoops) loops)", count: Self.fixedBase + Self.perEventLoop * eventLoops),
            Term(name: "[socket] max_clients", count: configuration.socket.maxClients),
            Term(name: "[metrics] max_connections (with [metrics] listen)", count: metrics),
            Term(name: "[web] 2 × max_clients + \(Self.webListener) listening sockets + \(Self.webPeerOwner) netlink (with [web] listen)", count: web),
            Term(name: "[pcsc] readers (\(PCSCReaderBackend.maximumReaders) at most, with [pcsc] enabled)", count: pcsc),
            Term(name: "[libnfc] devices (with [libnfc] enabled)", count: nfc),
            Term(name: "[forward] outbox (\(Self.outboxFiles) files, with any sink)", count: forward.sinks.isEmpty ? 0 : Self.outboxFiles),
            Term(name: "[[forward.postgres]] (\(Self.perPostgresSink) each)", count: Self.perPostgresSink * forward.postgres.count),
            Term(name: "[[forward.webhooks]] (\(Self.perWebhookSink) each)", count: Self.perWebhookSink * forward.webhooks.count),
        ]
    }

    /// The sum of the terms.
    public var total: Int { terms.reduce(0) { $0 + $1.count } }

    /// `130 = base (...) 38 + [socket] max_clients 64 + ...`: every term that is not zero.
    public var description: String {
        "\(total) = " + terms.filter { $0.count > 0 }.map { "\($0.name) \($0.count)" }.joined(separator: " + ")
    }

    /// The devices `[libnfc] devices` can bring: one per connection string naming one device, and
    /// a scan's worth for one naming every device of a driver (`pn53x_usb`) or for an empty list.
    static func libnfcDevices(_ devices: [String]) -> Int {
        guard !devices.isEmpty else { return NFCReaderBackend.maximumScannedDevices }
        return devices.reduce(0) { sum, device in
            sum + (device.contains(":") ? 1 : NFCReaderBackend.maximumScannedDevices)
        }
    }
}
