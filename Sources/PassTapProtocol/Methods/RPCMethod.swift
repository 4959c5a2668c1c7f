/// The methods a client may call, by wire name: the catalogue shared by `passtapd` and `passtap`.
///
/// Each has typed params and result in this folder; `docs/socket-api.md` shows every one on the
/// wire.
public enum RPCMethod: String, Sendable, CaseIterable, Codable {
    /// `status`: daemon version, protocol version, instance, uptime, readers.
    /// Params: none. Result: ``StatusResult``.
    case status = "status"
    /// `readers.list`: the readers and their state. Params: none. Result: ``ReadersListResult``.
    case readersList = "readers.list"
    /// `events.subscribe`: start the event stream on this connection.
    /// Params: ``EventsSubscribeParams``. Result: ``EventsSubscribeResult``, then notifications.
    case eventsSubscribe = "events.subscribe"
    /// `card.transmit`: send one APDU to the card on a reader (only with `allow_transmit`).
    /// Params: ``CardTransmitParams``. Result: ``CardTransmitResult``.
    case cardTransmit = "card.transmit"
    /// `pass.read`: wait for the next tap on a reader and answer with its wallet records (Apple
    /// VAS for an iPhone, Google Smart Tap for an Android phone).
    /// Params: ``VASReadParams``. Result: ``VASReadResult``.
    case passRead = "pass.read"
    /// `vas.read`: the name `pass.read` had before 0.3.0, kept: the same params, result and role.
    case vasRead = "vas.read"
    /// `forward.status` (role `observe`): the outbox and each sink's backlog.
    /// Params: none. Result: ``ForwardStatusResult``.
    case forwardStatus = "forward.status"
    /// `forward.retry` (role `manage`): put a sink's dead events back in its queue.
    /// Params: ``ForwardSinkParams``. Result: ``ForwardRetryResult``.
    case forwardRetry = "forward.retry"
    /// `forward.drop` (role `manage`): drop everything a sink still has to deliver, dead events
    /// included (a removed sink's backlog, or a backlog no longer wanted), announced with
    /// `forward.dropped`. Params: ``ForwardSinkParams``. Result: ``ForwardDropResult``.
    case forwardDrop = "forward.drop"
    /// `feedback.signal` (role `read`): play the POS's verdict (`accepted`, `refused`) on a
    /// reader, rate-limited per peer. Params: ``FeedbackSignalParams``. Result:
    /// ``FeedbackSignalResult``.
    case feedbackSignal = "feedback.signal"
}
