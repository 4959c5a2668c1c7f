import SmartTap
import VAS
public import Logging

/// The daemon's ``TapHandler``: picks the plan for the reader (its VAS merchants the union of
/// those the waiting `vas.read`s ask for, if any wait), runs the session engine on an ISO-DEP card
/// (a Type 4 NDEF read last, when nothing else succeeded), publishes the tap's `read.result` and
/// answers every one of those `vas.read`s with the merchants it asked for. A memory card gets
/// a `read.result` with its identity, and a Type 2 tag (one with ``Tap/memory``) its NDEF message
/// too, read page by page without APDUs.
///
/// Its settings (AIDs, reader overrides, PPSE, budget, VAS merchants, keys and freshness) come
/// from a ``LiveConfiguration`` that a reload swaps; each tap takes one snapshot at its start.
public final class TapCoordinator: TapHandler {
    private let live: LiveConfiguration
    private let features: SessionFeatures
    private let engine: SessionEngine
    private let vasReads: PassReadQueue
    private let events: EventSink
    private let logger: Logger
    private let observer: SessionObserver?
    private let clock: DaemonClock
    /// The slices' reader-side hooks, run after each published result.
    private let hooks: ReaderHooks

    /// Creates a coordinator for a validated configuration that never changes.
    public convenience init(
        configuration: Configuration, features: SessionFeatures, engine: SessionEngine = SessionEngine(), vasReads: PassReadQueue = PassReadQueue(),
        logger: Logger, events: EventSink, observer: SessionObserver? = nil, clock: DaemonClock = .system, hooks: ReaderHooks = ReaderHooks()
    ) {
        self.init(
            live: LiveConfiguration(configuration), features: features, engine: engine, vasReads: vasReads, logger: logger, events: events, observer: observer,
            clock: clock, hooks: hooks)
    }

    /// Creates a coordinator reading its settings from `live` at the start of each tap. Each
    /// session is timed on `clock`'s monotonic time (its `read.result`'s `duration_ms`); `observer` (the metrics
    /// recorder) gets that duration and each APDU round trip. `features` makes each tap's wallet
    /// and NDEF parts from the configuration. `hooks` run on the reader's thread once each tap's
    /// result is published (``ReaderHook``).
    public init(
        live: LiveConfiguration, features: SessionFeatures, engine: SessionEngine = SessionEngine(), vasReads: PassReadQueue = PassReadQueue(),
        logger: Logger, events: EventSink, observer: SessionObserver? = nil, clock: DaemonClock = .system, hooks: ReaderHooks = ReaderHooks()
    ) {
        self.hooks = hooks
        self.observer = observer
        self.clock = clock
        self.live = live
        self.features = features
        self.engine = engine
        self.vasReads = vasReads
        self.events = events
        self.logger = logger
    }

    public func handleTap(reader: ReaderID, tap: Tap) {
        _ = read(reader: reader, tap: tap)
    }

    /// The hooks' work on a reader that just opened (the reader feedback's detection beep).
    public func readerOpened(reader: ReaderID, control: (any ReaderControl)?) {
        hooks.readerOpened(ReaderAccess(reader: reader, channel: nil, control: control))
    }

    /// Runs the tap and returns what it published (for tests).
    @discardableResult
    public func read(reader: ReaderID, tap: Tap) -> ReadResult {
        // One snapshot for the whole tap: a reload during it takes effect at the next tap.
        let configuration = live.current
        guard tap.target == .isoDep, let channel = tap.channel else {
            // No APDU session for a card without ISO-DEP: its identity, and a Type 2 tag's NDEF
            // message, are the whole result; a waiting vas.read is left for a tap that can answer it.
            let ndef = features.readsNDEF(configuration) ? tap.memory.map {
                engine.readType2($0, budget: .milliseconds(configuration.sessionBudgetMilliseconds))
            } : nil
            let result = ReadResult(card: tap.card, target: tap.target, session: nil, ndef: ndef)
            if tap.isAbandoned() { return result }
            events.publish(.readResult, reader, .readResult(result))
            vasReads.skip(reader: reader)
            log(result, reader: reader, onDemand: false)
            hooks.tapFinished(ReaderAccess(reader: reader, channel: tap.channel, control: tap.control), result: result)
            return result
        }
        // A waiting vas.read is answered by either wallet: VAS for an iPhone, Smart Tap for Android.
        let claim = features.readsPasses(configuration) ? vasReads.claim(reader: reader) : nil
        let wallets = features.wallets(configuration, claim?.merchants)
        let plan = SessionPlan(
            aids: configuration.aids(for: reader), ppse: configuration.ppse, vas: wallets.vas, smartTap: wallets.smartTap,
            ndef: features.readsNDEF(configuration), budget: .milliseconds(configuration.sessionBudgetMilliseconds))
        // The session is always timed (its read.result carries duration_ms); the round trips
        // only for an observer.
        let start = clock.now
        let outcome = engine.run(plan, on: observer.map { TimedCardChannel(channel, reader: reader, observer: $0, clock: clock) } ?? channel)
        let duration = clock.now - start
        observer?.sessionFinished(reader, duration)
        TapTrace.mark(.sessionDone)
        let result = ReadResult(card: tap.card, target: .isoDep, session: outcome, duration: duration)
        // A session that outlived its thread's restart: the reader's events are the new
        // thread's now. The vas.reads it claimed still get the result the card gave.
        if tap.isAbandoned() {
            logger.warning("Session of a restarted reader ended; its read.result is not published", metadata: ["reader.id": "\(reader)"])
            if let claim { vasReads.finish(claim, with: result) }
            return result
        }
        events.publish(.readResult, reader, .readResult(result))
        if let claim { vasReads.finish(claim, with: result) }
        log(result, reader: reader, onDemand: claim != nil)
        // After the line is out and every waiting pass read answered: a hook delays no client.
        hooks.tapFinished(ReaderAccess(reader: reader, channel: channel, control: tap.control), result: result)
        return result
    }

    /// One line per tap: which application, which VAS and Smart Tap statuses; never payloads or keys.
    private func log(_ result: ReadResult, reader: ReaderID, onDemand: Bool) {
        var metadata: Logger.Metadata = [
            "reader.id": "\(reader)",
            "session.target": "\(result.target.rawValue)",
        ]
        if let aid = result.aid {
            metadata["session.aid"] = "\(aid.selected.map { "\($0)" } ?? "none")"
            metadata["session.attempts"] = "\(aid.attempts.count)"
        }
        if let vas = result.vas {
            metadata["vas.offered"] = "\(vas.offered)"
            metadata["vas.statuses"] = "\(vas.entries.map(\.status.rawValue).joined(separator: ","))"
        }
        if let smartTap = result.smartTap {
            metadata["smarttap.status"] = "\(smartTap.status?.rawValue ?? "none")"
        }
        // The tap answered a waiting pass.read (or vas.read), whichever wallet it was.
        if onDemand { metadata["pass.on_demand"] = "true" }
        if let ndef = result.ndef {
            metadata["ndef.tag_type"] = "\(ndef.tagType.rawValue)"
            metadata["ndef.records"] = "\(ndef.recordCount)"
        }
        if let error = result.error {
            metadata["session.error"] = "\(error.code)"
            logger.warning("Session ended early", metadata: metadata)
        } else {
            logger.info("Session done", metadata: metadata)
        }
    }
}
