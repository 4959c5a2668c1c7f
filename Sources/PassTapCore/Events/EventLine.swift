/// One event encoded as subscribers receive it: a whole line of the wire, newline included.
///
/// Core does not know the wire's format; an ``EventLineEncoder`` does (PassTapProtocol's is the
/// JSON-RPC `event` notification). The ``EventHub`` keeps the line of each ``EventView`` with the
/// event, and every subscriber of that view writes the same line.
public protocol EventLine: Sendable {
    /// How many bytes the line takes on the wire, newline included: what the hub counts against
    /// `[events] buffer_bytes`.
    var byteCount: Int { get }
}
