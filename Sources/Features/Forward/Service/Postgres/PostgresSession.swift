import ForwardSettings
import Logging
import NIOCore
import PassTapCore
import PassTapProtocol
import PostgresNIO
import Synchronization

/// The one connection a ``PostgresSink`` delivers over: opened on first use, checked for the
/// table once per connection, and dropped after any failure, so the next delivery starts on a
/// fresh connection (after a server restart, a timeout, a refused statement).
///
/// One `PostgresConnection`, not a `PostgresClient` pool: the forwarder gives a sink one batch at
/// a time, so a pool would hold one busy connection anyway, and a pool retries connecting in the
/// background while a lease waits, so a delivery could not report *why* it failed (a wrong
/// password, a certificate) as its own error.
actor PostgresSession {
    private let configuration: Configuration.ForwardPostgres
    private let table: PostgresEventTable
    private let timeout: Duration
    private let logger: Logger
    private var connection: PostgresConnection?
    /// Whether the table is known to exist on ``connection``'s server.
    private var tableReady = false
    private var connections = 0
    private var isShutDown = false

    /// A session for `configuration`; every statement after connecting must be answered within
    /// `timeout`, or the connection is closed and the delivery fails.
    init(configuration: Configuration.ForwardPostgres, timeout: Duration, logger: Logger) {
        self.configuration = configuration
        self.table = PostgresEventTable(name: configuration.table)
        self.timeout = timeout
        self.logger = logger
    }

    /// Inserts `batch` as one statement: all its rows are in the table (new or already there)
    /// when this returns. When it throws, none of them is, or (the answer lost, the statement
    /// timed out after the server took it) all of them: sending the batch again is harmless.
    func insert(_ batch: [OutboxItem]) async throws(PostgresDeliveryError) {
        let connection = try await connected()
        let deadline = PostgresDeadline(closing: connection, after: timeout)
        defer { deadline.cancel() }
        var stage = "checking the table"
        do {
            if !tableReady {
                try await ensureTable(on: connection, stage: &stage)
                tableReady = true
            }
            stage = "inserting a batch of \(batch.count)"
            _ = try await connection.query(table.insert(batch), logger: logger).collect()
        } catch {
            await drop(connection)
            if deadline.fired { throw PostgresDeliveryError(.timeout, "\(stage): no answer within \(timeout) (the connection was closed)") }
            throw PostgresDeliveryError(PostgresFailure.failure(error, stage: stage))
        }
    }

    /// Closes the connection; later deliveries fail without connecting.
    func shutdown() async {
        isShutDown = true
        if let connection { await drop(connection) }
    }

    /// The open connection, or a new one.
    private func connected() async throws(PostgresDeliveryError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        tableReady = false
        guard !isShutDown else { throw PostgresDeliveryError(.other, "the sink is shut down") }
        let target = self.target
        connections += 1
        let opened: PostgresConnection
        if PostgresEndpoint.needsPasswordGuard(configuration) {
            opened = try await connectGuarded(target: target)
        } else {
            let settings: PostgresConnection.Configuration
            do {
                settings = try PostgresEndpoint.connectionConfiguration(for: configuration)
            } catch {
                throw PostgresDeliveryError(.tls, "reading ca_file \(configuration.caFile ?? "-"): \(error)")
            }
            do {
                opened = try await PostgresConnection.connect(configuration: settings, id: connections, logger: logger)
            } catch {
                throw PostgresDeliveryError(PostgresFailure.failure(error, stage: "connecting to \(target)"))
            }
        }
        guard !isShutDown else {
            try? await opened.close()
            throw PostgresDeliveryError(.other, "the sink is shut down")
        }
        connection = opened
        logger.info("connected to PostgreSQL", metadata: ["server": "\(target)", "tls": "\(tlsMode)"])
        return opened
    }

    /// A connection to a TCP server no certificate proves, over a channel whose login
    /// ``PostgresPasswordGuard`` watches.
    private func connectGuarded(target: String) async throws(PostgresDeliveryError) -> PostgresConnection {
        let channel: any Channel
        do {
            channel = try await PostgresEndpoint.guardedChannel(for: configuration)
        } catch {
            throw PostgresDeliveryError(PostgresFailure.failure(error, stage: "connecting to \(target)"))
        }
        do {
            let settings = try PostgresEndpoint.connectionConfiguration(for: configuration, over: channel)
            // On the channel's own event loop: postgres-nio sets its handlers up there.
            return try await PostgresConnection.connect(on: channel.eventLoop, configuration: settings, id: connections, logger: logger).get()
        } catch {
            try? await channel.close()
            throw PostgresDeliveryError(PostgresFailure.failure(error, stage: "connecting to \(target)"))
        }
    }

    /// Creates the table and its index unless the table is there.
    private func ensureTable(on connection: PostgresConnection, stage: inout String) async throws {
        var exists = false
        for try await found in try await connection.query(table.existsQuery, logger: logger).decode(Bool.self) { exists = found }
        guard !exists else { return }
        stage = "creating table \(table.quotedName)"
        _ = try await connection.query(PostgresQuery(unsafeSQL: table.createTable), logger: logger).collect()
        _ = try await connection.query(PostgresQuery(unsafeSQL: table.createTimeIndex), logger: logger).collect()
        logger.notice("created the PostgreSQL table", metadata: ["table": "\(configuration.table)"])
    }

    private func drop(_ failed: PostgresConnection) async {
        if connection === failed {
            connection = nil
            tableReady = false
        }
        try? await failed.close()
    }

    /// Where it connects: `host:port`, or the socket's path.
    private var target: String {
        PostgresEndpoint.isUnixSocketDirectory(configuration.host)
            ? PostgresEndpoint.socketPath(directory: configuration.host, port: configuration.port)
            : "\(configuration.host):\(configuration.port)"
    }

    private var tlsMode: String {
        if PostgresEndpoint.isUnixSocketDirectory(configuration.host) { return "unix socket" }
        return configuration.tls == .require && configuration.caFile != nil ? "require (verify-ca: ca_file)" : configuration.tls.rawValue
    }
}

/// Why a PostgreSQL delivery failed: the failure ``PostgresFailure`` made (no password, no row
/// data).
struct PostgresDeliveryError: Error, CustomStringConvertible {
    let failure: ForwardFailure

    init(_ failure: ForwardFailure) {
        self.failure = failure
    }

    init(_ reason: ForwardFailureReason, _ text: String) {
        self.init(ForwardFailure(reason, text))
    }

    var description: String { failure.text }
}

/// Closes a connection when its statements take longer than the sink's timeout (which fails
/// them at once), unless cancelled first.
private struct PostgresDeadline {
    private final class Flag: Sendable {
        let value = Mutex(false)
    }

    private let scheduled: Scheduled<Void>
    private let flag = Flag()

    init(closing connection: PostgresConnection, after timeout: Duration) {
        let flag = self.flag
        scheduled = connection.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            flag.value.withLock { $0 = true }
            let closing: EventLoopFuture<Void> = connection.close()
            _ = closing
        }
    }

    /// Whether the deadline passed and closed the connection.
    var fired: Bool { flag.value.withLock { $0 } }

    func cancel() { scheduled.cancel() }
}
