import Crypto
import ISO7816

/// The params of `auth.hello`, the first request on `/rpc`:
/// `{"protocol": 1, "token": "till-1", "nonce": "<64 hex digits>"}`. The client names a
/// `[[web.tokens]]` entry and sends 32 fresh random bytes; the secret itself never crosses the
/// wire (see ``WebAuthProof`` and `docs/web.md`, "The handshake"). Not a socket method: the Unix
/// socket knows its peer from the kernel.
public struct AuthHelloParams: Sendable, Hashable, Codable {
    /// The protocol the client speaks (``PassTapProtocolVersion``): a page learns here, before it
    /// can call `status`, whether this passtapd speaks its protocol.
    public var `protocol`: Int
    /// The token's `name`, not its secret.
    public var token: String
    /// The client's nonce: 32 random bytes in hex.
    public var nonce: String

    /// Params naming `token`, with the client's `nonce` (hex).
    public init(protocol: Int = PassTapProtocolVersion, token: String, nonce: String) {
        self.protocol = `protocol`
        self.token = token
        self.nonce = nonce
    }
}

/// The answer to `auth.hello`: `{"protocol": 1, "nonce": "<64 hex>", "proof": "<64 hex>"}`,
/// passtapd's nonce and its proof that it holds the token's secret
/// (``WebAuthProof/Side/server``). A client sends its own proof only once this one checks out.
public struct AuthHelloResult: Sendable, Hashable, Codable {
    /// The protocol passtapd speaks (``PassTapProtocolVersion``).
    public var `protocol`: Int
    /// passtapd's nonce: 32 random bytes in hex.
    public var nonce: String
    /// passtapd's proof, in hex.
    public var proof: String

    /// An answer with passtapd's `nonce` and `proof` (both hex).
    public init(protocol: Int = PassTapProtocolVersion, nonce: String, proof: String) {
        self.protocol = `protocol`
        self.nonce = nonce
        self.proof = proof
    }
}

/// The params of `auth.prove`, the second request on `/rpc`: `{"proof": "<64 hex>"}`, the
/// client's proof (``WebAuthProof/Side/client``) over the two nonces of `auth.hello`.
public struct AuthProveParams: Sendable, Hashable, Codable {
    /// The client's proof, in hex.
    public var proof: String

    /// Params carrying `proof` (hex).
    public init(proof: String) {
        self.proof = proof
    }
}

/// The result of a successful `auth.prove`: `{"token": "till-1", "roles": ["observe", "read"]}`,
/// the name of the token and the roles the connection now holds.
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

/// The proofs of `/rpc`'s handshake: HMAC-SHA256 keyed by a token's secret (the bytes of its
/// token file's line) over a direction label, the token's name and both nonces:
///
///     HMAC-SHA256(secret, LABEL || 0x00 || NAME || 0x00 || CLIENT_NONCE || SERVER_NONCE)
///
/// where LABEL is `passtap-web-auth-1 server` for passtapd's proof and `passtap-web-auth-1 client`
/// for the client's, NAME is the name's UTF-8 bytes and each nonce is its 32 raw bytes. Both
/// nonces are fresh on every connection, so a proof is worth nothing on another one, and the label
/// keeps one side's proof from serving as the other's.
public struct WebAuthProof: Sendable {
    /// Which side proves.
    public enum Side: String, Sendable {
        /// passtapd, in the answer to `auth.hello`.
        case server = "passtap-web-auth-1 server"
        /// The client, in `auth.prove`.
        case client = "passtap-web-auth-1 client"
    }

    /// The length of a nonce in bytes.
    public static let nonceBytes = 32

    /// The token's name.
    public let name: String
    /// The client's nonce (32 bytes).
    public let clientNonce: [UInt8]
    /// passtapd's nonce (32 bytes).
    public let serverNonce: [UInt8]

    /// The proofs of one handshake: the token `name` and both nonces.
    public init(name: String, clientNonce: [UInt8], serverNonce: [UInt8]) {
        self.name = name
        self.clientNonce = clientNonce
        self.serverNonce = serverNonce
    }

    /// `side`'s proof made with `secret` (the token file's line, as bytes).
    public func proof(_ side: Side, secret: some Collection<UInt8>) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message(side), using: SymmetricKey(data: Array(secret))))
    }

    /// Whether `candidate` is `side`'s proof made with `secret`: swift-crypto's check, in
    /// constant time.
    public func verify(_ candidate: [UInt8], _ side: Side, secret: some Collection<UInt8>) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(candidate, authenticating: message(side), using: SymmetricKey(data: Array(secret)))
    }

    /// What `side`'s proof authenticates: its label, the name and both nonces.
    private func message(_ side: Side) -> [UInt8] {
        Array(side.rawValue.utf8) + [0] + Array(name.utf8) + [0] + clientNonce + serverNonce
    }

    /// 32 bytes from the system's secure random generator.
    public static func makeNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<nonceBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `text` as a nonce or proof: exactly 64 hex digits, in either case; `nil` otherwise.
    public static func bytes(hex text: String) -> [UInt8]? {
        guard text.utf8.count == 2 * nonceBytes, let bytes = try? [UInt8](hex: text), bytes.count == nonceBytes else { return nil }
        return bytes
    }

    /// `bytes` as the handshake writes them: lower-case hex.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.hexString.lowercased()
    }
}
