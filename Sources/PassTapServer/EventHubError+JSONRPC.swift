public import PassTapCore
public import PassTapProtocol

extension EventHubError: JSONRPCErrorConvertible {
    /// Both are bad params of `events.subscribe`: -32602.
    public var jsonRPCError: JSONRPCError {
        .invalidParams(method: RPCMethod.eventsSubscribe.rawValue, description)
    }
}
