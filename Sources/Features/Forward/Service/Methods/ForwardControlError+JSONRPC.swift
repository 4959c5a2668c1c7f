import ISO7816
public import PassTapProtocol
public import PassTapServer

extension ForwardControlError: JSONRPCErrorConvertible {
    /// `unknownSink` -32021 `unknown_sink`, `outboxUnavailable` -32022 `outbox_unavailable`.
    public var jsonRPCError: JSONRPCError {
        switch self {
        case .unknownSink(let name):
            return JSONRPCError(
                .unknownSink,
                "no forwarding sink is named \(UntrustedText.quoted(name)): passtap forward status lists the configured ones and removed ones whose backlog is still kept")
        case .outboxUnavailable(let reason):
            return JSONRPCError(.outboxUnavailable, "the forwarding outbox cannot be used now: \(reason); see passtapd's log")
        }
    }
}
