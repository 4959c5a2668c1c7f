/// The `error` member of a JSON-RPC 2.0 response: `{"code": -32602, "message": "...",
/// "data": {"reason": "invalid_params"}}`.
///
/// JSON-RPC 2.0, section 5.1: "code: A Number that indicates the error type that occurred. [...]
/// message: A String providing a short description of the error. [...] data: A Primitive or
/// Structured value that contains additional information about the error."
/// PassTap's `message` says what happened and what to do; `data.reason` is the stable snake_case
/// name of ``code``, and `data.code` carries a transport error's own code. Equal by ``code``.
public struct JSONRPCError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `data` member: machine-readable detail.
    public struct Detail: Sendable, Hashable, Codable {
        /// The snake_case name of the error (see ``JSONRPCErrorCode/reason``).
        public var reason: String
        /// For `transport_error`: the card transport code (`card_removed`, `timeout`...).
        public var code: String?
        /// For `auth_rate_limited`: milliseconds until failed `auth` attempts from that Origin
        /// count again (`retry_after_ms`).
        public var retryAfterMilliseconds: Int?
        /// For `protocol_unsupported`: the protocol versions passtapd speaks (`supported`).
        public var supported: [Int]?
        /// For the `timeout` of `pass.read` (and `vas.read`): the taps on the reader during the
        /// wait that could not answer it, memory cards and tags (`skipped_taps`); absent when none.
        public var skippedTaps: Int?

        /// Creates the detail of an error.
        public init(reason: String, code: String? = nil, retryAfterMilliseconds: Int? = nil, supported: [Int]? = nil, skippedTaps: Int? = nil) {
            self.reason = reason
            self.code = code
            self.retryAfterMilliseconds = retryAfterMilliseconds
            self.supported = supported
            self.skippedTaps = skippedTaps
        }

        private enum CodingKeys: String, CodingKey {
            case reason
            case code
            case retryAfterMilliseconds = "retry_after_ms"
            case supported
            case skippedTaps = "skipped_taps"
        }
    }

    /// The integer code.
    public var code: JSONRPCErrorCode
    /// A sentence for a person: what happened and what to do.
    public var message: String
    /// Machine-readable detail; PassTap always sends it.
    public var data: Detail?

    /// Creates an error whose `data.reason` is the code's reason.
    public init(_ code: JSONRPCErrorCode, _ message: String, transportCode: String? = nil) {
        self.code = code
        self.message = message
        self.data = Detail(reason: code.reason, code: transportCode)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The `data.reason`, falling back to the code's own reason when a peer sent none.
    public var reason: String { data?.reason ?? code.reason }

    public var description: String { "\(message) (\(reason) \(code.rawValue))" }
}
