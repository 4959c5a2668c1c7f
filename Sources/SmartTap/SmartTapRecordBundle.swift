import Crypto
import _CryptoExtras

/// The record bundle (`reb`) of a GET DATA answer: a flags byte, then the sealed service values
/// (docs/smarttap.md, "The protocol as implemented"):
///
/// ```
/// flags (1) | IV (12) | AES-128-CTR ciphertext | HMAC-SHA256(IV | ciphertext) (32)
/// ```
/// Flags `02` and `03` mean the plaintext is zlib-compressed (Google's sample reader refuses
/// them for that reason); bit 0 is not interpreted: every bundle is opened.
struct SmartTapRecordBundle: Sendable, Hashable {
    static let ivLength = 12
    static let macLength = 32

    var flags: UInt8
    var iv: [UInt8]
    var ciphertext: [UInt8]
    var mac: [UInt8]

    /// Splits the `reb` payload.
    init(payload: [UInt8]) throws(SmartTapFailure) {
        guard payload.count >= 1 + Self.ivLength + Self.macLength else {
            throw SmartTapFailure(.malformedResponse, "the record bundle (reb) is \(payload.count) bytes, shorter than flags, IV and MAC (45)")
        }
        flags = payload[0]
        iv = Array(payload[1...Self.ivLength])
        ciphertext = Array(payload[(1 + Self.ivLength)..<(payload.count - Self.macLength)])
        mac = Array(payload.suffix(Self.macLength))
    }

    /// The plaintext is zlib-compressed.
    var isCompressed: Bool { flags & 0x02 != 0 }

    /// Checks the HMAC first, then decrypts: `bad_mac` when the MAC does not match.
    func open(with keys: SmartTapSessionKeys) throws(SmartTapFailure) -> [UInt8] {
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: iv + ciphertext, using: keys.macKey) else {
            throw SmartTapFailure(.badMAC, "the record bundle's HMAC does not match; it was not decrypted")
        }
        do {
            let nonce = try AES._CTR.Nonce(nonceBytes: iv)
            return Array(try AES._CTR.decrypt(ciphertext, using: keys.aesKey, nonce: nonce))
        } catch {
            throw SmartTapFailure(.malformedResponse, "AES-CTR refused the record bundle (\(error))")
        }
    }

    /// Seals `plaintext` the way a phone does: for tests and the rig's reference.
    static func seal(_ plaintext: [UInt8], flags: UInt8, iv: [UInt8], keys: SmartTapSessionKeys) throws -> [UInt8] {
        let ciphertext = Array(try AES._CTR.encrypt(plaintext, using: keys.aesKey, nonce: AES._CTR.Nonce(nonceBytes: iv)))
        let mac = Array(HMAC<SHA256>.authenticationCode(for: iv + ciphertext, using: keys.macKey))
        return [flags] + iv + ciphertext + mac
    }
}
