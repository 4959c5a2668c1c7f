import Foundation

extension Event {
    /// What an `event` notification adds around its params:
    /// `{"jsonrpc":"2.0","method":"event","params":` … `}` and the newline.
    static let notificationOverhead = 45

    /// The bytes this event's `event` line takes on the socket, as the hub counts it against
    /// `[events] buffer_bytes`: the event encoded as compact JSON (as the server encodes it) with
    /// its `seq` counted at its widest (20 digits), plus ``notificationOverhead``. The time is
    /// not known yet (the hub stamps it under its lock) but has a fixed width (RFC 3339 with
    /// milliseconds), so this is the real length or up to 19 bytes over it, never under.
    static func lineSize(kind: EventKind, reader: ReaderID?, payload: EventPayload) -> Int {
        let widest = Event(seq: .max, time: Date(timeIntervalSince1970: 0), kind: kind, reader: reader, payload: payload)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let json = try? encoder.encode(widest) else {
            // Events always encode; should one not, count it as a full line rather than as free.
            return 64 * 1024
        }
        return json.count + notificationOverhead
    }
}
