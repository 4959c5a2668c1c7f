public import ISO7816
public import Logging

/// The life of one reader, the same for every backend, run on the reader's own thread:
/// `reader.added`; then, for each card, `card.inserted` → the tap's session → queued requests
/// while the card stays → `card.removed`; and `reader.removed` last of all.
///
/// Only this thread publishes the reader's events, so they come in that order. A reader that
/// fails is reopened with backoff (`reader.changed` says it is unavailable, and why); a reader
/// that another process holds is retried until it is free; a reader that is gone, or a slot that
/// stops, ends the thread. The backend supplies only its verbs (``ReaderPort``).
public struct ReaderLifecycle: Sendable {
    /// Pauses between reopening a failed reader: doubling from `first` to `last`, seconds.
    public struct Backoff: Hashable, Sendable {
        /// The first pause.
        public var first: Double
        /// The longest pause.
        public var last: Double

        /// Creates a backoff.
        public init(first: Double, last: Double) {
            self.first = first
            self.last = last
        }

        /// 0.1 s doubling to 5 s.
        public static let standard = Backoff(first: 0.1, last: 5)
    }

    /// The reader's slot (state, queue, stop).
    public let slot: ReaderSlot
    private let port: any ReaderPort
    private let tapHandler: any TapHandler
    private let transmitter: APDUTransmitter
    private let events: EventSink
    private let backoff: Backoff
    private let logger: Logger

    /// A lifecycle for `slot`, opened through `port`; `transmitter` serves `card.transmit`.
    public init(
        slot: ReaderSlot, port: any ReaderPort, tapHandler: any TapHandler, transmitter: APDUTransmitter = APDUTransmitter(),
        events: EventSink, backoff: Backoff = .standard, logger: Logger
    ) {
        self.slot = slot
        self.port = port
        self.tapHandler = tapHandler
        self.transmitter = transmitter
        self.events = events
        self.backoff = backoff
        self.logger = logger
    }

    /// The thread's body: returns when the reader is gone or the slot stops.
    public func run() {
        publish(.readerAdded, .reader(slot.info))
        var delay = backoff.first
        while !slot.isStopping {
            let fault: ReaderFault
            do {
                let driver = try slot.busy(.open) { () throws(ReaderFault) in try port.open() }
                slot.busy(.open) { tapHandler.readerOpened(reader: slot.id, control: driver.readerControl) }
                fault = serve(driver, delay: &delay)
            } catch {
                fault = error
            }
            if slot.isStopping { break }
            switch fault.kind {
            case .gone:
                logger.info("Reader gone", metadata: ["reader.id": "\(slot.id)", "reason": "\(fault.reason)"])
                return finish(reason: fault.reason)
            case .inUse, .failed:
                markUnavailable(fault)
                slot.sleep(seconds: delay)
                delay = min(delay * 2, backoff.last)
            }
        }
        finish(reason: slot.stopReason)
    }

    /// Waits for cards and serves them until the driver fails or the slot stops.
    private func serve(_ driver: any ReaderDriver, delay: inout Double) -> ReaderFault {
        // Usable once a wait has worked: a reader another process holds opens fine and fails
        // only when the card is connected, and must not flicker to `empty` on every retry.
        var working = false
        while !slot.isStopping {
            let wait = slot.busy(.waitForCard) { driver.waitForCard() }
            if !working, !wait.isFailure {
                working = true
                markAvailable()
            }
            switch wait {
            case .idle:
                // Requests that raced with a removal: there is no card to send them to.
                slot.failPending(.noCard(slot.id))
                // Features' work needs no card (a job that arrives with a card runs after its
                // session, with the card's channel).
                runJobs(driver, channel: nil)
            case .failed(let fault):
                return fault
            case .card(let tap):
                delay = backoff.first
                // Stopped (or abandoned) during the wait: let the card go, run no session.
                if slot.isStopping {
                    slot.busy(.endTap) { driver.endTap(stopping: slot.resetsCardOnStop) }
                    break
                }
                var tap = tap
                let owner = slot
                tap.isAbandoned = { owner.isAbandoned }
                if let fault = serveCard(tap, driver) { return fault }
            }
        }
        return ReaderFault(.gone, "stopping")
    }

    /// One card's stay in the field; returns the fault that ended the reader, if one did.
    private func serveCard(_ tap: Tap, _ driver: any ReaderDriver) -> ReaderFault? {
        slot.setState(.present)
        publish(.cardInserted, .card(tap.card))
        slot.busy(.session) { tapHandler.handleTap(reader: slot.id, tap: tap) }
        var fault: ReaderFault?
        presence: while !slot.isStopping {
            while let request = slot.takeRequest() {
                request.reply.resume(returning: slot.busy(.request) { execute(request, on: tap.channel) })
            }
            runJobs(driver, channel: tap.channel)
            switch slot.busy(.waitForRemoval, { driver.waitForRemoval() }) {
            case .present: continue
            case .removed: break presence
            case .failed(let reason):
                fault = reason
                break presence
            }
        }
        let stopping = slot.isStopping
        if !stopping { slot.setState(.empty) }
        slot.failPending(stopping ? slot.stopAnswer : .noCard(slot.id))
        slot.busy(.endTap) { driver.endTap(stopping: stopping && slot.resetsCardOnStop) }
        publish(.cardRemoved, .cardRemoved)
        return fault
    }

    /// Runs the features' queued work (``ReaderSlot/perform(_:)``), with the card's channel when a
    /// card is in the field.
    private func runJobs(_ driver: any ReaderDriver, channel: (any CardChannel)?) {
        while let job = slot.takeJob() {
            slot.busy(.request) { job.run(ReaderAccess(reader: slot.id, channel: channel, control: driver.readerControl)) }
        }
    }

    private func execute(_ request: ReaderRequest, on channel: (any CardChannel)?) -> Result<ResponseAPDU, ReaderCommandError> {
        guard let channel else { return .failure(.notISODep(slot.id)) }
        do {
            if request.raw { return .success(try transmitter.sendRaw(request.command, on: channel)) }
            return .success(try transmitter.send(request.command, on: channel))
        } catch {
            return .failure(.transport(error))
        }
    }

    private func markAvailable() {
        if slot.setState(.empty) {
            logger.info("Reader available", metadata: ["reader.id": "\(slot.id)"])
            publish(.readerChanged, .reader(slot.info))
        }
    }

    private func markUnavailable(_ fault: ReaderFault) {
        slot.failJobs(.readerUnavailable(slot.id, reason: fault.reason))
        if slot.setState(.unavailable, reason: fault.reason) {
            logger.warning("Reader unavailable", metadata: ["reader.id": "\(slot.id)", "reason": "\(fault.reason)"])
            publish(.readerChanged, .reader(slot.info))
        }
    }

    /// Publishes one of the reader's events, unless a new thread has taken the reader over.
    private func publish(_ kind: EventKind, _ payload: EventPayload) {
        slot.publish(events, kind, payload)
    }

    /// The reader's last event.
    private func finish(reason: String?) {
        slot.setState(.unavailable, reason: reason)
        slot.failPending(slot.isStopping ? slot.stopAnswer : .readerUnavailable(slot.id, reason: reason))
        slot.failJobs(slot.isStopping ? slot.stopAnswer : .readerUnavailable(slot.id, reason: reason))
        publish(.readerRemoved, .reader(slot.info))
        logger.debug("Reader thread ended", metadata: ["reader.id": "\(slot.id)"])
    }
}

extension CardWait {
    /// Whether the wait ended with a fault.
    fileprivate var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}
