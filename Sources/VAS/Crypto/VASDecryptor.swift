import Crypto

/// Decrypts VAS cryptograms for one pass type identifier with that merchant's keys
/// (vas-protocol.md §5.2).
///
/// 1. Pick the key whose id equals bytes 0..<4 (several keys per pass are normal during rotation).
/// 2. Rebuild the phone's point from X (prefix `02`); reject X not on P-256.
/// 3. Z = X coordinate of (merchant scalar × phone point).
/// 4. K = SHA-256(Z ‖ 00000001 ‖ SharedInfo), X9.63 with the counter after Z.
/// 5. AES-256-GCM open with K, a 16-byte zero IV and the variant's AAD: variant A, then B.
///
/// Everything that depends on the merchant alone (public keys, key ids, both SharedInfo strings
/// and the AAD) is computed once here; nothing about the phone's key is cached.
public struct VASDecryptor: Sendable {
    /// The pass these keys decrypt.
    public let passTypeIdentifier: PassTypeIdentifier
    /// When false, every key is tried regardless of the cryptogram's key id (for checking a
    /// cryptogram whose id bytes were altered, vas-protocol.md §8.4).
    public let checksKeyID: Bool
    /// The configured keys, in order.
    public let keys: [MerchantKey]

    private let attempts: [(variant: VASCipherVariant, sharedInfo: [UInt8], authenticatedData: [UInt8])]

    /// A decryptor for `passTypeIdentifier` holding `keys`.
    public init(passTypeIdentifier: PassTypeIdentifier, keys: [MerchantKey], checksKeyID: Bool = true) {
        self.passTypeIdentifier = passTypeIdentifier
        self.keys = keys
        self.checksKeyID = checksKeyID
        let hash = passTypeIdentifier.sha256
        self.attempts = VASCipherVariant.allCases.map { variant in
            (variant, variant.sharedInfo(passHash: hash), variant.authenticatedData(passHash: hash))
        }
    }

    /// Decrypts raw `9F27` bytes, first checking their length.
    public func decrypt(_ bytes: [UInt8]) -> VASDecryption {
        guard let cryptogram = VASCryptogram(bytes: bytes) else {
            return VASDecryption(
                status: .malformedResponse,
                keyID: bytes.count >= VASKeyID.length ? VASKeyID(validated: Array(bytes.prefix(VASKeyID.length))) : nil,
                problem: "cryptogram of \(bytes.count) bytes; it must be \(VASCryptogram.minimumLength)...\(VASCryptogram.maximumLength)"
            )
        }
        return decrypt(cryptogram)
    }

    /// Decrypts a cryptogram.
    public func decrypt(_ cryptogram: VASCryptogram) -> VASDecryption {
        let keyID = cryptogram.keyID
        let candidates = checksKeyID ? keys.filter { $0.keyID == keyID } : keys
        guard !candidates.isEmpty else {
            return VASDecryption(
                status: .noMatchingKey, keyID: keyID,
                problem: "the phone encrypted for key id \(keyID.hex), which no configured key of \(passTypeIdentifier) has"
            )
        }
        let x = cryptogram.ephemeralX
        let ciphertext = cryptogram.ciphertext
        let tag = cryptogram.tag
        var pointRejected = false
        for key in candidates {
            guard let z = key.sharedSecret(phoneX: x) else {
                pointRejected = true
                break
            }
            for attempt in attempts {
                let k = X963KDF.sha256(sharedSecret: z, sharedInfo: attempt.sharedInfo)
                if let plaintext = VASGCM.open(key: k, ciphertext: ciphertext, tag: tag, authenticatedData: attempt.authenticatedData),
                    let payload = VASPayload(plaintext: plaintext)
                {
                    return VASDecryption(status: .success, keyID: keyID, variant: attempt.variant, payload: payload)
                }
            }
        }
        return VASDecryption(
            status: .decryptFailed, keyID: keyID,
            problem: pointRejected
                ? "the phone's ephemeral X is not on P-256"
                : "no key and shared-info variant authenticates the cryptogram (wrong key for this pass, or corrupted data)"
        )
    }
}
