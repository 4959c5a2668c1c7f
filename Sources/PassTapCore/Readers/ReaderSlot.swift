import Foundation
public import ISO7816
import Synchronization

/// What a reader's thread and the rest of the daemon share about one reader: its state and the
/// reason it is unavailable, its request queue (served in arrival order, between sessions), and
/// how to wake or stop its thread (the backend's ``ReaderPort`` verbs, which never block).
public final class ReaderSlot: Sendable {
    private struct Shared {
        var state: ReaderInfo.State = .empty
        var reason: String?
        var queue: [ReaderRequest] = []
        /// Features' work for the reader's thread, card or not (``perform(_:)``).
        var jobs: [ReaderJob] = []
        /// The request the reader's thread is carrying out.
        var inFlight: ReaderRequest?
        var nextRequest: UInt64 = 0
        /// Requests given an id and not queued yet.
        var allocated: Set<UInt64> = []
        /// Of those, the ones whose task was cancelled before they could be queued.
        var cancelledEarly: Set<UInt64> = []
        var stopping = false
        /// Why the slot stopped, for a person; `nil` when the daemon is shutting down.
        var stopReason: String?
        /// The blocking call the reader's thread is in, and since when (see ``busy(_:_:)``).
        var busy: (call: ReaderCall, since: ContinuousClock.Instant)?
    }

    /// The reader's id.
    public let id: ReaderID
    private let port: any ReaderPort
    private let shared = Mutex(Shared())
    /// The reader's backoff pause, which stopping the slot ends.
    private let pause = StoppableWait()
    /// Whether the slot was abandoned (``abandon(because:)``): held while the thread publishes, so
    /// no event of the abandoned thread can follow the `reader.removed` that abandons it.
    private let abandoned = Mutex(false)

    /// A slot for reader `id`, woken and stopped through `port`.
    public init(id: ReaderID, port: any ReaderPort) {
        self.id = id
        self.port = port
    }

    /// The reader as `readers.list` shows it.
    public var info: ReaderInfo {
        shared.withLock { ReaderInfo(id: id, name: id.name, backend: id.backend.rawValue, state: $0.state, reason: $0.reason) }
    }

    /// Whether ``stop()`` was called.
    public var isStopping: Bool { shared.withLock { $0.stopping } }

    /// How many requests wait in the queue.
    public var queuedCount: Int { shared.withLock { $0.queue.count } }

    /// Sets the state; returns whether state or reason changed.
    @discardableResult
    func setState(_ state: ReaderInfo.State, reason: String? = nil) -> Bool {
        shared.withLock { shared in
            defer {
                shared.state = state
                shared.reason = reason
            }
            return shared.state != state || shared.reason != reason
        }
    }

    /// Sends `command` to the card through the reader's thread and waits for the answer.
    ///
    /// Answered at once with an error when there is no card, the reader is unavailable or the
    /// slot is stopping. A task cancelled while its request is queued takes it out of the queue
    /// at once (``ReaderCommandError/cancelled``); one the thread has begun is answered
    /// `cancelled` at once too, while the exchange with the card runs to its end and its answer is
    /// dropped.
    public func transmit(_ command: CommandAPDU, raw: Bool) async throws(ReaderCommandError) -> ResponseAPDU {
        let id = shared.withLock { shared in
            defer { shared.nextRequest += 1 }
            shared.allocated.insert(shared.nextRequest)
            return shared.nextRequest
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (reply: CheckedContinuation<Result<ResponseAPDU, ReaderCommandError>, Never>) in
                enqueue(ReaderRequest(id: id, command: command, raw: raw, reply: ReaderRequest.Reply(reply)))
            }
        } onCancel: {
            cancel(request: id)
        }
        return try result.get()
    }

    /// Runs `work` on the reader's thread, between sessions or with the card in the field, and
    /// returns what it returned: a feature's work with the reader itself (the POS's verdict played
    /// on it, `feedback.signal`). `work` gets the card's channel when a card is in the field, and
    /// the reader's control channel; it must be short, as the reader's next tap waits for it.
    ///
    /// Answered at once with an error when the reader is unavailable or the slot is stopping.
    public func perform<T: Sendable>(_ work: @escaping @Sendable (ReaderAccess) -> T) async throws(ReaderCommandError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ReaderCommandError>, Never>) in
            let job = ReaderJob(work, continuation: continuation)
            let refusal: ReaderCommandError? = shared.withLock { shared in
                if shared.stopping { return Self.stopAnswer(id, shared.stopReason) }
                if shared.state == .unavailable { return .readerUnavailable(id, reason: shared.reason) }
                shared.jobs.append(job)
                return nil
            }
            if let refusal {
                job.fail(refusal)
            } else {
                port.wake()
            }
        }
        return try result.get()
    }

    /// Takes the oldest queued job; `nil` when none waits.
    func takeJob() -> ReaderJob? {
        shared.withLock { $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }
    }

    /// Answers every queued job with `error` (the reader stopped or failed).
    func failJobs(_ error: ReaderCommandError) {
        let jobs: [ReaderJob] = shared.withLock { shared in
            defer { shared.jobs.removeAll() }
            return shared.jobs
        }
        for job in jobs { job.fail(error) }
    }

    private func enqueue(_ request: ReaderRequest) {
        let refusal: ReaderCommandError? = shared.withLock { shared in
            shared.allocated.remove(request.id)
            if shared.cancelledEarly.remove(request.id) != nil { return .cancelled }
            if shared.stopping { return Self.stopAnswer(id, shared.stopReason) }
            switch shared.state {
            case .present:
                shared.queue.append(request)
                return nil
            case .empty:
                return .noCard(id)
            case .unavailable:
                return .readerUnavailable(id, reason: shared.reason)
            }
        }
        if let refusal {
            request.reply.resume(returning: .failure(refusal))
        } else {
            port.wake()
        }
    }

    private func cancel(request id: UInt64) {
        let request: ReaderRequest? = shared.withLock { shared in
            if let index = shared.queue.firstIndex(where: { $0.id == id }) {
                return shared.queue.remove(at: index)
            }
            // Being carried out: the caller is answered now, and the card's answer dropped.
            if shared.inFlight?.id == id { return shared.inFlight }
            // Not queued yet: the enqueue still to come refuses it. Answered already: nothing to do.
            if shared.allocated.contains(id) { shared.cancelledEarly.insert(id) }
            return nil
        }
        request?.reply.resume(returning: .failure(.cancelled))
    }

    /// Takes the oldest queued request, marking it in flight; `nil` when none waits.
    func takeRequest() -> ReaderRequest? {
        shared.withLock { shared in
            guard !shared.queue.isEmpty else {
                shared.inFlight = nil
                return nil
            }
            shared.inFlight = shared.queue.removeFirst()
            return shared.inFlight
        }
    }

    /// Answers every queued request, and the one in flight, with `error`.
    func failPending(_ error: ReaderCommandError) {
        let requests: [ReaderRequest] = shared.withLock { shared in
            defer {
                shared.queue.removeAll()
                shared.inFlight = nil
            }
            return shared.queue + (shared.inFlight.map { [$0] } ?? [])
        }
        for request in requests {
            request.reply.resume(returning: .failure(error))
        }
    }

    /// Why the slot stopped (``stop(because:)``); `nil` while it runs, or when the daemon stops.
    public var stopReason: String? { shared.withLock { $0.stopReason } }

    /// What a request gets once the slot has stopped.
    var stopAnswer: ReaderCommandError { shared.withLock { Self.stopAnswer(id, $0.stopReason) } }

    private static func stopAnswer(_ id: ReaderID, _ reason: String?) -> ReaderCommandError {
        reason.map { .readerUnavailable(id, reason: $0) } ?? .shuttingDown
    }

    /// Asks the reader's thread to end: queued and in-flight requests are answered at once (the
    /// thread may be stuck in a transfer), and the backend's `stop` verb ends its wait. With a
    /// `reason` (the reader was unplugged, its stack went away) they are answered
    /// `reader_unavailable` with it, and `reader.removed` carries it; without, `shutting_down`.
    public func stop(because reason: String? = nil) {
        let first = shared.withLock { shared in
            guard !shared.stopping else { return false }
            shared.stopping = true
            shared.stopReason = reason
            return true
        }
        guard first else { return }
        failPending(stopAnswer)
        failJobs(stopAnswer)
        port.stop()
        pause.stop()
    }

    /// Runs one blocking call of the reader's thread (opening the reader, a wait slice, a tap's
    /// session, a request, letting go of the card), noting it so the reader supervisor can tell a
    /// thread stuck in it (``stuckCall(at:allowance:)``).
    func busy<T, Failure: Error>(_ call: ReaderCall, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        shared.withLock { $0.busy = (call, .now) }
        defer { shared.withLock { $0.busy = nil } }
        return try body()
    }

    /// The call the reader's thread has been in for longer than `allowance` at `now`, with how
    /// long; `nil` when it is in none, or not for that long.
    public func stuckCall(at now: ContinuousClock.Instant, allowance: Duration) -> (call: ReaderCall, duration: Duration)? {
        shared.withLock { shared in
            guard let busy = shared.busy, !shared.stopping else { return nil }
            let duration = busy.since.duration(to: now)
            return duration > allowance ? (busy.call, duration) : nil
        }
    }

    /// Whether a card still in the field is reset when the thread lets it go stopping: only when
    /// the daemon stops. An abandoned slot's card is the new thread's now; a removed reader's is
    /// gone with it.
    var resetsCardOnStop: Bool { stopReason == nil }

    /// Whether ``abandon(because:)`` was called.
    public var isAbandoned: Bool { abandoned.withLock { $0 } }

    /// Publishes an event of this reader, unless the slot was abandoned: its thread, stuck, was
    /// replaced by a new one, which owns the reader's events from then on.
    func publish(_ events: EventSink, _ kind: EventKind, _ payload: EventPayload) {
        abandoned.withLock { abandoned in
            if !abandoned { events.publish(kind, id, payload) }
        }
    }

    /// Gives up on a thread stuck in a call to the reader: the slot stops (its requests are
    /// answered `reader_unavailable` with `reason`, and its backend's `stop` verb tries to end
    /// the call), and nothing the thread does from now on reaches `events`, where
    /// `reader.removed` with `reason` is published now. The ``ReaderRegistry`` then starts the reader anew.
    /// Returns false when the slot was stopped or abandoned already.
    @discardableResult
    public func abandon(because reason: String, events: EventSink) -> Bool {
        let first = abandoned.withLock { abandoned in
            guard !abandoned, !isStopping else { return false }
            abandoned = true
            setState(.unavailable, reason: reason)
            events.publish(.readerRemoved, id, .reader(info))
            return true
        }
        if first { stop(because: reason) }
        return first
    }

    /// Sleeps up to `seconds`, returning early when the slot stops.
    func sleep(seconds: Double) {
        pause.pause(for: .milliseconds(Int(seconds * 1000)))
    }
}

/// The blocking calls a reader's thread makes (see ``ReaderSlot/busy(_:_:)``).
public enum ReaderCall: String, Sendable {
    case open
    case waitForCard = "wait_for_card"
    case session
    case request
    case waitForRemoval = "wait_for_removal"
    case endTap = "end_tap"

    /// What the thread was doing, for a person.
    public var activity: String {
        switch self {
        case .open: return "opening the reader"
        case .waitForCard: return "waiting for a card or reading its identity"
        case .session: return "a tap's session"
        case .request: return "a card.transmit request"
        case .waitForRemoval: return "waiting for the card to leave"
        case .endTap: return "releasing the card"
        }
    }
}
