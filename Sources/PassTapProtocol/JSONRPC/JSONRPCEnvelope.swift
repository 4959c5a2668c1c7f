/// The members of any JSON-RPC 2.0 message that say what it is, decoded before its params or
/// result: the server reads requests with it, a client tells responses from notifications.
///
/// JSON-RPC 2.0, section 4: a Request has `jsonrpc` ("MUST be exactly \"2.0\""), `method` (a
/// String), optional `params` (Object or Array) and optional `id`; without `id` it is a
/// Notification. Section 5: a Response has `jsonrpc`, `id`, and exactly one of `result` and
/// `error`.
public struct JSONRPCEnvelope: Sendable, Hashable, Decodable {
    /// `jsonrpc`, if it was a string.
    public var version: String?
    /// `id`; `nil` when the member is absent (a notification), ``JSONRPCID/null`` when it is `null`.
    public var id: JSONRPCID?
    /// `method`, if present and a string.
    public var method: String?
    /// Whether `method` was present but not a string.
    public var methodIsMalformed: Bool
    /// Whether a `result` member is present.
    public var hasResult: Bool
    /// The `error` member, if present.
    public var error: JSONRPCError?

    private enum CodingKeys: String, CodingKey { case jsonrpc, id, method, result, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try? container.decode(String.self, forKey: .jsonrpc)
        id = container.contains(.id) ? (try? container.decode(JSONRPCID.self, forKey: .id)) ?? .null : nil
        let rawMethod = try? container.decode(String.self, forKey: .method)
        method = rawMethod
        methodIsMalformed = container.contains(.method) && rawMethod == nil
        hasResult = container.contains(.result)
        error = try? container.decode(JSONRPCError.self, forKey: .error)
    }

    /// Whether this is a notification from the server (a `method` and no `id`).
    public var isNotification: Bool { method != nil && id == nil }

    /// Checks the members a request must have; returns its method or the error to answer with.
    public func requestMethod() -> Result<String, JSONRPCError> {
        guard version == "2.0" else { return .failure(.invalidRequest("\"jsonrpc\" must be \"2.0\"")) }
        guard !methodIsMalformed, let method else {
            return .failure(.invalidRequest("\"method\" must be a string"))
        }
        return .success(method)
    }
}
