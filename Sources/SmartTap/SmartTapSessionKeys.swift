import Crypto

/// The two keys that open a record bundle, derived as Google's sample reader does
/// (docs/smarttap.md, "The protocol as implemented"):
///
/// ```
/// Z    = ECDH(reader ephemeral private key, device ephemeral public key)
/// OKM  = HKDF-SHA256(IKM: Z, salt: device ephemeral key (33 bytes, compressed),
///                    info: reader nonce | device nonce | collector id | reader key (33) | signature (DER),
///                    48 bytes)
/// AES key = OKM[0..<16], HMAC key = OKM[16..<48]
/// ```
struct SmartTapSessionKeys {
    var aesKey: SymmetricKey
    var macKey: SymmetricKey

    /// Length of the derived material: a 16-byte AES key and a 32-byte HMAC key.
    static let derivedLength = 48

    init(sharedSecret: [UInt8], deviceKey: [UInt8], info: [UInt8]) {
        var okm = Self.hkdf(inputKeyMaterial: sharedSecret, salt: deviceKey, info: info, length: Self.derivedLength)
        aesKey = SymmetricKey(data: okm[0..<16])
        macKey = SymmetricKey(data: okm[16..<48])
        okm.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = 0 }
        }
    }

    /// ECDH: the shared secret Z (32 bytes) of the reader's ephemeral key and the phone's
    /// compressed ephemeral key, or `nil` when `deviceKey` is not a compressed P-256 point.
    static func sharedSecret(readerKey: P256.KeyAgreement.PrivateKey, deviceKey: [UInt8]) -> [UInt8]? {
        guard deviceKey.count == 33, let key = try? P256.KeyAgreement.PublicKey(compressedRepresentation: deviceKey),
            let secret = try? readerKey.sharedSecretFromKeyAgreement(with: key)
        else { return nil }
        return secret.withUnsafeBytes { Array($0) }
    }

    /// HKDF-SHA256 (RFC 5869): extract with `salt`, expand with `info` to `length` bytes.
    static func hkdf(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: inputKeyMaterial), salt: salt, info: info, outputByteCount: length
        )
        return key.withUnsafeBytes { Array($0) }
    }

    /// The HKDF info: what the collector signed, then the signature.
    static func info(signedData: [UInt8], signature: [UInt8]) -> [UInt8] { signedData + signature }
}
