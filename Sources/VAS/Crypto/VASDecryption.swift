/// The result of decrypting one cryptogram: a value, never a throw (habit 5).
///
/// ``status`` is one of `success`, `no_matching_key` (``keyID`` shows which key the phone used),
/// `decrypt_failed` (no configured key and variant authenticates, or the phone's X is not on
/// P-256) or `malformed_response` (impossible length).
public struct VASDecryption: Hashable, Sendable {
    /// The outcome.
    public let status: VASReadStatus
    /// The key id the cryptogram names; `nil` only when it was too short to hold one.
    public let keyID: VASKeyID?
    /// The shared-info variant that authenticated, on success.
    public let variant: VASCipherVariant?
    /// The timestamp and message, on success.
    public let payload: VASPayload?
    /// Why it failed, for logs; never holds key material or plaintext.
    public let problem: String?

    init(status: VASReadStatus, keyID: VASKeyID?, variant: VASCipherVariant? = nil, payload: VASPayload? = nil, problem: String? = nil) {
        self.status = status
        self.keyID = keyID
        self.variant = variant
        self.payload = payload
        self.problem = problem
    }
}
