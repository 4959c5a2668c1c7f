public import ForwardSettings
public import Logging
public import PassTapCore

/// A `[[forward.postgres]]` sink: each batch of events becomes rows of one table, in one
/// `INSERT ... ON CONFLICT (id) DO NOTHING`, so a batch delivered again (after a lost answer, a
/// restart of the daemon) never makes a second row.
///
/// The table is created on first use if it is missing, with the schema `docs/fleet.md`
/// documents. Every failure (the server down or restarting, a refused login or certificate, a
/// timeout, a refused statement) is ``DeliveryOutcome/retry(delivered:after:error:)`` of the
/// whole batch, which one statement makes all or nothing: there is no dead list, because no
/// event is ever refused for what it is (the ids are unique and the events are our own JSON), so
/// whatever fails fails for every event alike until the server or its settings are fixed.
public final class PostgresSink: ForwardSink {
    public let settings: Configuration.ForwardSinkSettings
    /// 100 rows a statement: 800 bind parameters (PostgreSQL takes 65 535), about 100 kB.
    public let batchLimit: Int
    private let session: PostgresSession

    /// A sink for `configuration`. It connects on the first delivery, not here. Each delivery may
    /// take `timeout` once connected (connecting itself has 10 s), else it is retried on a new
    /// connection.
    public init(configuration: Configuration.ForwardPostgres, logger: Logger, batchLimit: Int = 100, timeout: Duration = .seconds(30)) {
        settings = Configuration.ForwardSinkConfiguration.postgres(configuration).settings
        self.batchLimit = batchLimit
        var logger = logger
        logger[metadataKey: "sink"] = "\(configuration.name)"
        session = PostgresSession(configuration: configuration, timeout: timeout, logger: logger)
    }

    public func deliver(_ batch: [OutboxItem]) async -> DeliveryOutcome {
        guard !batch.isEmpty else { return .delivered }
        do {
            try await session.insert(batch)
            return .delivered
        } catch {
            return .retry(delivered: 0, after: nil, error: error.failure)
        }
    }

    public func shutdown() async {
        await session.shutdown()
    }
}
