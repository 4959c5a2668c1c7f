@preconcurrency public import Crypto
import Wallets

/// A merchant's P-256 private key for decrypting VAS cryptograms (vas-protocol.md §6), with what
/// depends only on it precomputed: the public key, its X coordinate and the 4-byte key id.
///
/// The public key is always derived from the scalar; public keys embedded in key files are
/// ignored. ``description`` is redacted: `MerchantKey(id: C0B77375, <redacted>)`.
///
/// The private key lives in swift-crypto's `P256.KeyAgreement.PrivateKey`, which keeps its own
/// copy of the scalar (in BoringSSL) for as long as the key exists; we cannot zero that copy.
/// Loading zeroes every buffer of ours that held key bytes (``SecretBytes``).
public struct MerchantKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Length of a P-256 scalar and coordinate.
    public static let scalarLength = MerchantKeyDecoder.scalarLength

    let privateKey: P256.KeyAgreement.PrivateKey
    /// The public key, derived from the scalar.
    public let publicKey: P256.KeyAgreement.PublicKey
    /// The public key's X coordinate (32 bytes, big-endian).
    public let publicKeyX: [UInt8]
    /// SHA-256(X)[0..<4]: the id every cryptogram for this key starts with.
    public let keyID: VASKeyID

    /// A key from its 32-byte big-endian scalar. `path` only labels the error.
    public init(scalar: [UInt8], path: String = "<memory>") throws(MerchantKeyError) {
        guard scalar.count == Self.scalarLength,
            let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar)
        else {
            throw MerchantKeyError(
                .invalidScalar, path: path,
                "the private scalar is not a valid P-256 key (it must be 32 bytes, nonzero and below the curve order); make a new key with `passtap keygen`"
            )
        }
        self.init(privateKey)
    }

    /// A fresh random key.
    public static func generate() -> MerchantKey {
        MerchantKey(P256.KeyAgreement.PrivateKey(compactRepresentable: false))
    }

    private init(_ privateKey: P256.KeyAgreement.PrivateKey) {
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey
        let x = Array(publicKey.x963Representation.dropFirst().prefix(Self.scalarLength))
        self.publicKeyX = x
        self.keyID = VASKeyID(publicKeyX: x)
    }

    /// The ECDH shared secret Z (32 bytes) with the phone key whose X coordinate is `x`, or `nil`
    /// when `x` is not the X of a P-256 point (vas-protocol.md §5.2 steps 2–3). Either point with
    /// that X gives the same Z, so the `02` prefix is used.
    public func sharedSecret(phoneX x: [UInt8]) -> [UInt8]? {
        guard x.count == Self.scalarLength,
            let phoneKey = try? P256.KeyAgreement.PublicKey(compressedRepresentation: [0x02] + x),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: phoneKey)
        else { return nil }
        return secret.withUnsafeBytes { Array($0) }
    }

    public var description: String { "MerchantKey(id: \(keyID.hex), <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["keyID": keyID.hex], displayStyle: .struct) }
}
