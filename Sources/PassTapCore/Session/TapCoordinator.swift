import VAS
public import Logging

/// The daemon's ``TapHandler``: picks the plan for the reader (shaped by a waiting `vas.read`, if
/// any), runs the session engine, publishes the tap's `read.result` and answers that `vas.read`.
public final class TapCoordinator: TapHandler {
    /// How events leave the coordinator (the event hub's `publish`).
    public typealias Publish = @Sendable (EventKind, ReaderID?, EventPayload) -> Void

    private let configuration: Configuration
    private let engine: SessionEngine
    private let vasReads: VASReadQueue
    private let publish: Publish
    private let logger: Logger

    /// Creates a coordinator for a validated configuration.
    public init(
        configuration: Configuration, engine: SessionEngine = SessionEngine(), vasReads: VASReadQueue = VASReadQueue(),
        logger: Logger, publish: @escaping Publish
    ) {
        self.configuration = configuration
        self.engine = engine
        self.vasReads = vasReads
        self.publish = publish
        self.logger = logger
    }

    @discardableResult
    public func handleTap(reader: ReaderID, card: CardInfo, channel: any CardChannel) -> ReadResult {
        let claim = configuration.vas.enabled ? vasReads.claim(reader: reader) : nil
        let vas = configuration.vas.enabled ? VASPlan(settings: configuration.vas, requested: claim?.merchants) : nil
        let plan = SessionPlan(aids: configuration.aids(for: reader), ppse: configuration.ppse, vas: vas)
        let outcome = engine.run(plan, on: channel)
        let result = ReadResult(atr: card.atr, uid: card.uid, aid: outcome.aid, vas: outcome.vas, error: outcome.error)
        publish(.readResult, reader, .readResult(result))
        if let claim { vasReads.finish(claim, with: result) }
        log(result, reader: reader, onDemand: claim != nil)
        return result
    }

    /// One line per tap: which application, which VAS statuses; never payloads or keys.
    private func log(_ result: ReadResult, reader: ReaderID, onDemand: Bool) {
        var metadata: Logger.Metadata = [
            "reader.id": "\(reader)",
            "session.aid": "\(result.aid.selected ?? "none")",
            "session.attempts": "\(result.aid.attempts.count)",
        ]
        if let vas = result.vas {
            metadata["vas.offered"] = "\(vas.offered)"
            metadata["vas.statuses"] = "\(vas.entries.map(\.status.rawValue).joined(separator: ","))"
            if onDemand { metadata["vas.on_demand"] = "true" }
        }
        if let error = result.error {
            metadata["session.error"] = "\(error.code)"
            logger.warning("Session ended early", metadata: metadata)
        } else {
            logger.info("Session done", metadata: metadata)
        }
    }
}
