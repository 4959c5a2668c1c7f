public import Logging

/// The daemon's ``TapHandler``: picks the plan for the reader, runs the session engine, and
/// publishes the tap's `read.result`.
public final class TapCoordinator: TapHandler {
    /// How events leave the coordinator (the event hub's `publish`).
    public typealias Publish = @Sendable (EventKind, ReaderID?, EventPayload) -> Void

    private let configuration: Configuration
    private let engine: SessionEngine
    private let publish: Publish
    private let logger: Logger

    /// Creates a coordinator for a validated configuration.
    public init(configuration: Configuration, engine: SessionEngine = SessionEngine(), logger: Logger, publish: @escaping Publish) {
        self.configuration = configuration
        self.engine = engine
        self.publish = publish
        self.logger = logger
    }

    @discardableResult
    public func handleTap(reader: ReaderID, card: CardInfo, channel: any CardChannel) -> ReadResult {
        let plan = SessionPlan(aids: configuration.aids(for: reader))
        let outcome = engine.run(plan, on: channel)
        let result = ReadResult(atr: card.atr, uid: card.uid, aid: outcome.aid, error: outcome.error)
        publish(.readResult, reader, .readResult(result))
        var metadata: Logger.Metadata = [
            "reader.id": "\(reader)",
            "session.aid": "\(outcome.aid.selected ?? "none")",
            "session.attempts": "\(outcome.aid.attempts.count)",
        ]
        if let error = outcome.error {
            metadata["session.error"] = "\(error.code)"
            logger.warning("Session ended early", metadata: metadata)
        } else {
            logger.info("Session done", metadata: metadata)
        }
        return result
    }
}
