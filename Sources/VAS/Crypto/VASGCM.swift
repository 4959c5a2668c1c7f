import Crypto
import Foundation

/// AES-256-GCM with the 16-byte all-zero IV VAS uses (vas-protocol.md §5.2 step 5).
///
/// swift-crypto's `AES.GCM.Nonce(data:)` accepts any nonce of 12 bytes or more, and its BoringSSL
/// backend hashes a non-12-byte IV through GHASH into J0 as GCM specifies, so a 16-byte nonce
/// works as is (checked against Wycheproof's 128-bit-IV cases in the tests). A 12-byte zero IV
/// would give a different keystream and fail.
public enum VASGCM {
    /// The IV: 16 zero bytes.
    public static let iv = [UInt8](repeating: 0, count: 16)

    /// Decrypts and checks the tag; `nil` when the tag does not verify.
    public static func open(
        key: [UInt8], iv: [UInt8] = iv, ciphertext: [UInt8], tag: [UInt8], authenticatedData: [UInt8]
    ) -> [UInt8]? {
        guard let nonce = try? AES.GCM.Nonce(data: iv),
            let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag),
            let plaintext = try? AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: authenticatedData)
        else { return nil }
        return Array(plaintext)
    }

    /// Encrypts; returns ciphertext and 16-byte tag. Throws only for an invalid key or IV size.
    public static func seal(
        key: [UInt8], iv: [UInt8] = iv, plaintext: [UInt8], authenticatedData: [UInt8]
    ) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        let box = try AES.GCM.seal(
            plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: iv), authenticating: authenticatedData
        )
        return (Array(box.ciphertext), Array(box.tag))
    }
}
