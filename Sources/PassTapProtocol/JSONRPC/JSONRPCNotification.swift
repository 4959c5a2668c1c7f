/// A JSON-RPC 2.0 notification from the server: a method and params, no id, no answer expected.
///
/// PassTap sends two to subscribers (see ``RPCNotificationMethod``): `event` with an ``Event``
/// and `events.dropped` with ``EventsDroppedParams``.
public struct JSONRPCNotification<Params: Sendable>: Sendable {
    /// The notification method.
    public var method: String
    /// The params.
    public var params: Params

    /// Creates a notification.
    public init(method: RPCNotificationMethod, params: Params) {
        self.method = method.rawValue
        self.params = params
    }

    fileprivate enum CodingKeys: String, CodingKey { case jsonrpc, method, params }
}

extension JSONRPCNotification: Encodable where Params: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(method, forKey: .method)
        try container.encode(params, forKey: .params)
    }
}

extension JSONRPCNotification: Decodable where Params: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        params = try container.decode(Params.self, forKey: .params)
    }
}
