import Foundation

/// What an event carries beyond `seq`, `time`, `kind` and `reader`.
public enum EventPayload: Sendable, Hashable {
    /// `backend.down` / `backend.up`: which backend, and why (for `down`).
    case backend(name: String, reason: String?)
    /// `reader.added` / `reader.removed`.
    case reader(ReaderInfo)
    /// `card.inserted`.
    case card(CardInfo)
    /// `card.removed`.
    case cardRemoved
    /// `read.result`.
    case readResult(ReadResult)
    /// `config.reloaded`.
    case configReloaded(ConfigReloaded)
    /// `config.rejected`.
    case configRejected(ConfigRejected)
    /// `forward.dropped`.
    case forwardDropped(ForwardDropped)
}

/// One event as subscribers receive it: the params of an `event` notification.
///
/// `seq` is strictly increasing and never reused while the daemon runs; `time` is RFC 3339 with
/// milliseconds, UTC. The payload's fields are flattened into the same object.
public struct Event: Sendable, Hashable {
    /// The sequence number, starting at 1.
    public var seq: UInt64
    /// When the hub published it.
    public var time: Date
    /// The kind.
    public var kind: EventKind
    /// The reader it concerns; `nil` for backend-wide events.
    public var reader: ReaderID?
    /// The kind-specific fields.
    public var payload: EventPayload

    /// Creates an event. Only the ``EventHub`` numbers events; tests may build them directly.
    public init(seq: UInt64, time: Date, kind: EventKind, reader: ReaderID?, payload: EventPayload) {
        self.seq = seq
        self.time = time
        self.kind = kind
        self.reader = reader
        self.payload = payload
    }
}
