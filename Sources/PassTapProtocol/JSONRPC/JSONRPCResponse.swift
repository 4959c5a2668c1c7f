/// A JSON-RPC 2.0 response: the request's id and either a result or an error.
///
/// JSON-RPC 2.0, section 5: "result: This member is REQUIRED on success. This member MUST NOT
/// exist if there was an error [...]. error: This member is REQUIRED on error. This member MUST
/// NOT exist if there was no error [...]. id: [...] If there was an error in detecting the id in
/// the Request object (e.g. Parse error/Invalid Request), it MUST be Null."
public struct JSONRPCResponse<Result: Sendable>: Sendable {
    /// The id of the request answered (``JSONRPCID/null`` when it could not be read).
    public var id: JSONRPCID
    /// The result, or the error.
    public var outcome: Swift.Result<Result, JSONRPCError>

    /// Creates a response.
    public init(id: JSONRPCID, outcome: Swift.Result<Result, JSONRPCError>) {
        self.id = id
        self.outcome = outcome
    }

    /// A successful response.
    public init(id: JSONRPCID, result: Result) { self.init(id: id, outcome: .success(result)) }

    /// An error response.
    public init(id: JSONRPCID, error: JSONRPCError) { self.init(id: id, outcome: .failure(error)) }

    fileprivate enum CodingKeys: String, CodingKey { case jsonrpc, id, result, error }
}

extension JSONRPCResponse: Encodable where Result: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        switch outcome {
        case .success(let result): try container.encode(result, forKey: .result)
        case .failure(let error): try container.encode(error, forKey: .error)
        }
    }
}

extension JSONRPCResponse: Decodable where Result: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(JSONRPCID.self, forKey: .id) ?? .null
        if let error = try container.decodeIfPresent(JSONRPCError.self, forKey: .error) {
            outcome = .failure(error)
        } else {
            outcome = .success(try container.decode(Result.self, forKey: .result))
        }
    }
}

/// The result type of a response that can only be an error (to a line that was not a request):
/// it has no values, so such a response never carries a `result`.
public enum JSONRPCNoResult: Sendable, Codable {
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "this response cannot carry a result"))
    }

    public func encode(to encoder: any Encoder) throws {}
}
