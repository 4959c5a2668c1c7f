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
        guard Self.authenticates(iv + ciphertext, mac: mac, key: keys.macKey) else {
            throw SmartTapFailure(.badMAC, "the record bundle's HMAC does not match; it was not decrypted")
        }
        guard let plaintext = Self.ctr(ciphertext, key: keys.aesKey, counterBlock: iv + [0, 0, 0, 0]) else {
            throw SmartTapFailure(.malformedResponse, "AES-CTR refused the record bundle")
        }
        return plaintext
    }

    /// HMAC-SHA256 of `message` under `key` equals `mac` (compared in constant time).
    static func authenticates(_ message: [UInt8], mac: [UInt8], key: SymmetricKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key)
    }

    /// AES-CTR from the 16-byte initial counter block (the bundle's 12-byte IV and a 32-bit
    /// counter starting at 0); the same call encrypts and decrypts. `nil` for a bad key or block.
    static func ctr(_ bytes: [UInt8], key: SymmetricKey, counterBlock: [UInt8]) -> [UInt8]? {
        guard counterBlock.count == 16, let nonce = try? AES._CTR.Nonce(nonceBytes: counterBlock),
            let output = try? AES._CTR.decrypt(bytes, using: key, nonce: nonce)
        else { return nil }
        return Array(output)
    }
}
