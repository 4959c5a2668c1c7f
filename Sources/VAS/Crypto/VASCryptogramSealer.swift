@preconcurrency public import Crypto

/// Makes VAS cryptograms the way a phone does (vas-protocol.md §5, run forwards), for the virtual
/// phone, round-trip tests and tooling.
public enum VASCryptogramSealer {
    /// Encrypts `payload` for the merchant key `merchantPublicKey` and pass `passTypeIdentifier`
    /// with the one-time key `ephemeralKey`, using `variant`'s SharedInfo and AAD.
    ///
    /// Output: key id ‖ X(ephemeral) ‖ AES-256-GCM(timestamp ‖ message) ‖ tag.
    public static func seal(
        payload: VASPayload,
        merchantPublicKey: P256.KeyAgreement.PublicKey,
        passTypeIdentifier: PassTypeIdentifier,
        variant: VASCipherVariant = .a,
        ephemeralKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()
    ) throws(VASCommandError) -> VASCryptogram {
        guard payload.message.count <= VASPayload.maximumMessageLength else {
            throw VASCommandError(
                .messageTooLong,
                "message of \(payload.message.count) bytes; Apple sends at most \(VASPayload.maximumMessageLength)"
            )
        }
        let merchantX = Array(merchantPublicKey.x963Representation.dropFirst().prefix(32))
        let ephemeralX = Array(ephemeralKey.publicKey.x963Representation.dropFirst().prefix(32))
        guard let secret = try? ephemeralKey.sharedSecretFromKeyAgreement(with: merchantPublicKey) else {
            preconditionFailure("ECDH between two valid P-256 keys cannot fail")
        }
        let z = secret.withUnsafeBytes { Array($0) }
        let hash = passTypeIdentifier.sha256
        let k = X963KDF.sha256(sharedSecret: z, sharedInfo: variant.sharedInfo(passHash: hash))
        guard let sealed = try? VASGCM.seal(key: k, plaintext: payload.plaintext, authenticatedData: variant.authenticatedData(passHash: hash)) else {
            preconditionFailure("AES-256-GCM with a 32-byte key and 16-byte IV cannot fail")
        }
        let bytes = VASKeyID(publicKeyX: merchantX).bytes + ephemeralX + sealed.ciphertext + sealed.tag
        guard let cryptogram = VASCryptogram(bytes: bytes) else {
            preconditionFailure("a message of at most 64 bytes gives 56...120 bytes")
        }
        return cryptogram
    }
}
