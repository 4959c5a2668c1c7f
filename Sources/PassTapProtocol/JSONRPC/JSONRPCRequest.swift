/// A JSON-RPC 2.0 request (with an ``id``) or client notification (without), typed by its params.
///
/// The CLI encodes these; the server decodes the params of a request whose
/// ``JSONRPCEnvelope`` it has checked, with `Params` chosen by the method.
public struct JSONRPCRequest<Params: Sendable>: Sendable {
    /// The id to echo; `nil` makes the request a notification (no response).
    public var id: JSONRPCID?
    /// The method name (see ``RPCMethod``).
    public var method: String
    /// The params; `nil` when absent.
    public var params: Params?

    /// Creates a request.
    public init(id: JSONRPCID?, method: String, params: Params?) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Creates a request for one of PassTap's methods.
    public init(id: JSONRPCID?, method: RPCMethod, params: Params?) {
        self.init(id: id, method: method.rawValue, params: params)
    }

    fileprivate enum CodingKeys: String, CodingKey { case jsonrpc, id, method, params }
}

extension JSONRPCRequest: Encodable where Params: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(method, forKey: .method)
        try container.encodeIfPresent(params, forKey: .params)
    }
}

extension JSONRPCRequest: Decodable where Params: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = container.contains(.id) ? try container.decode(JSONRPCID.self, forKey: .id) : nil
        method = try container.decode(String.self, forKey: .method)
        params = try container.decodeIfPresent(Params.self, forKey: .params)
    }
}
