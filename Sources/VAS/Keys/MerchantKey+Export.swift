import Crypto
import Foundation
import ISO7816
import Wallets

extension MerchantKey {
    /// The public key as DER SubjectPublicKeyInfo with a compressed point (59 bytes: a `30 39` header and
    /// 57 content bytes, which vas-protocol.md §6 calls "57 bytes DER"), the form
    /// pass.json's `nfc.encryptionPublicKey` takes (vas-protocol.md §6):
    ///
    /// ```
    /// 30 39 30 13 06 07 2A8648CE3D0201        id-ecPublicKey
    ///             06 08 2A8648CE3D030107      prime256v1
    ///       03 22 00 02|03 <X>                compressed point
    /// ```
    public var compressedPublicKeySPKI: [UInt8] {
        let algorithm = BERTLVWriter.encode(tag: 0x06, value: MerchantKeyDecoder.ecPublicKeyOID)
            + BERTLVWriter.encode(tag: 0x06, value: MerchantKeyDecoder.p256OID)
        let point = [0x00] + Array(publicKey.compressedRepresentation)
        return BERTLVWriter.encode(
            tag: 0x30,
            value: BERTLVWriter.encode(tag: 0x30, value: algorithm) + BERTLVWriter.encode(tag: 0x03, value: point)
        )
    }

    /// ``compressedPublicKeySPKI`` in Base64: `MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgAC...`.
    public var compressedPublicKeySPKIBase64: String {
        Data(compressedPublicKeySPKI).base64EncodedString()
    }

    /// The private key as PEM text. This is key material: write it only to a 0600 file.
    public func privateKeyPEM(format: MerchantKeyFormat) -> String {
        switch format {
        case .sec1:
            let sec1 = BERTLVWriter.encode(
                tag: 0x30,
                value: BERTLVWriter.encode(tag: 0x02, value: [0x01])
                    + BERTLVWriter.encode(tag: 0x04, value: Array(privateKey.rawRepresentation))
                    + BERTLVWriter.encode(tag: 0xA0, value: BERTLVWriter.encode(tag: 0x06, value: MerchantKeyDecoder.p256OID))
                    + BERTLVWriter.encode(tag: 0xA1, value: BERTLVWriter.encode(tag: 0x03, value: [0x00] + Array(publicKey.x963Representation)))
            )
            return Self.pem(label: "EC PRIVATE KEY", der: sec1)
        case .pkcs8:
            return Self.pem(label: "PRIVATE KEY", der: Array(privateKey.derRepresentation))
        }
    }

    /// Writes the private key to a new file with mode 0600; never replaces an existing file.
    public func write(toFile path: String, format: MerchantKeyFormat) throws(MerchantKeyError) {
        try KeyFile.writeNew(path: path, bytes: Array(privateKeyPEM(format: format).utf8))
    }

    private static func pem(label: String, der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
    }
}
