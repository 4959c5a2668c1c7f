/// The params of `auth`, the first request on `/rpc`: `{"token": "..."}`, the secret of one
/// `[[web.tokens]]` entry. Not a socket method: the Unix socket knows its peer from the kernel.
public struct AuthParams: Sendable, Hashable, Codable {
    /// The token's secret (never logged).
    public var token: String

    /// Params carrying `token`.
    public init(token: String) {
        self.token = token
    }
}

/// The result of a successful `auth`: `{"token": "till-1", "roles": ["observe", "read"]}`, the
/// name of the token and the roles the connection now holds.
public struct AuthResult: Sendable, Hashable, Codable {
    /// The token's `name`.
    public var token: String
    /// Its `roles`, sorted.
    public var roles: [String]

    /// A result for the token `token` holding `roles`.
    public init(token: String, roles: [String]) {
        self.token = token
        self.roles = roles
    }
}
