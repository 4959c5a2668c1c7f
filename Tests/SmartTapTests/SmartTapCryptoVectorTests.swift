import Crypto
import Foundation
import ISO7816
import Testing

@testable import SmartTap

/// The primitives Smart Tap's decryption is made of, through SmartTap's own entry points, against
/// vectors we did not make (Vectors/SOURCES.md).
@Suite(.timeLimit(.minutes(1))) struct SmartTapCryptoVectorTests {
    struct HKDFFile: Decodable {
        struct Case: Decodable { var section: String; var ikm: String; var salt: String; var info: String; var length: Int; var okm: String }
        var cases: [Case]
    }

    struct HMACFile: Decodable {
        struct Case: Decodable { var section: String; var key: String; var data: String; var mac: String }
        var cases: [Case]
    }

    struct CTRFile: Decodable { var key: String; var initialCounter: String; var plaintext: String; var ciphertext: String }

    /// RFC 5869 Appendix A.1–A.3 (the SHA-256 cases), through the key derivation's HKDF.
    @Test func hkdfMatchesRFC5869() throws {
        let file = try TestVectors.json(HKDFFile.self, "hkdf_rfc5869_sha256.json")
        #expect(file.cases.count == 3)
        for test in file.cases {
            let okm = SmartTapSessionKeys.hkdf(
                inputKeyMaterial: try [UInt8](hex: test.ikm), salt: try [UInt8](hex: test.salt), info: try [UInt8](hex: test.info),
                length: test.length)
            #expect(okm.hexString.lowercased() == test.okm, "RFC 5869 \(test.section)")
        }
    }

    /// RFC 4231 §4 (HMAC-SHA-256, all but the truncated case 5), through the bundle's MAC check;
    /// one flipped bit of the MAC is refused.
    @Test func hmacMatchesRFC4231() throws {
        let file = try TestVectors.json(HMACFile.self, "hmac_rfc4231_sha256.json")
        #expect(file.cases.count == 6)
        for test in file.cases {
            let key = SymmetricKey(data: try [UInt8](hex: test.key))
            let data = try [UInt8](hex: test.data)
            var mac = try [UInt8](hex: test.mac)
            #expect(SmartTapRecordBundle.authenticates(data, mac: mac, key: key), "RFC 4231 \(test.section)")
            mac[31] ^= 0x01
            #expect(!SmartTapRecordBundle.authenticates(data, mac: mac, key: key), "RFC 4231 \(test.section), altered")
        }
    }

    /// NIST SP 800-38A F.5.1 (encrypt) and F.5.2 (decrypt), CTR-AES128, through the bundle's
    /// AES-CTR (`_CryptoExtras`' `AES._CTR`).
    @Test func aesCTRMatchesSP80038A() throws {
        let file = try TestVectors.json(CTRFile.self, "aes_ctr_sp800_38a.json")
        let key = SymmetricKey(data: try [UInt8](hex: file.key))
        let counter = try [UInt8](hex: file.initialCounter)
        let plaintext = try [UInt8](hex: file.plaintext)
        let ciphertext = try [UInt8](hex: file.ciphertext)
        #expect(SmartTapRecordBundle.ctr(plaintext, key: key, counterBlock: counter) == ciphertext)  // F.5.1
        #expect(SmartTapRecordBundle.ctr(ciphertext, key: key, counterBlock: counter) == plaintext)  // F.5.2
        #expect(SmartTapRecordBundle.ctr(plaintext, key: key, counterBlock: Array(counter.prefix(12))) == nil)
    }

    // MARK: Wycheproof (swift-crypto 3.12.3's copies)

    struct ECDHFile: Decodable {
        struct Group: Decodable { var curve: String; var tests: [Test] }
        struct Test: Decodable { var tcId: Int; var `public`: String; var `private`: String; var shared: String; var result: String; var flags: [String] }
        var testGroups: [Group]
    }

    static let uncompressedHeader = "3059301306072a8648ce3d020106082a8648ce3d030107034200"
    static let compressedHeader = "3039301306072a8648ce3d020106082a8648ce3d030107032200"

    /// The phone's key as Smart Tap sends it: 33 bytes, compressed. Uncompressed Wycheproof points
    /// are compressed here (prefix from Y's parity).
    static func compressed(_ spkiHex: String) throws -> [UInt8]? {
        if spkiHex.hasPrefix(compressedHeader), spkiHex.count == 2 * 59 { return Array(try [UInt8](hex: spkiHex).suffix(33)) }
        guard spkiHex.hasPrefix(uncompressedHeader), spkiHex.count == 2 * 91 else { return nil }
        let point = Array(try [UInt8](hex: spkiHex).suffix(65))
        guard point[0] == 0x04 else { return nil }
        return [point[64] & 1 == 0 ? 0x02 : 0x03] + point[1...32]
    }

    static func scalar(_ hex: String) throws -> [UInt8] {
        let magnitude = Array(try [UInt8](hex: hex).drop { $0 == 0 })
        return [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
    }

    /// Wycheproof ECDH secp256r1: every valid case with a well-formed key gives the published
    /// secret through the reader's ECDH on the compressed key; every invalid compressed point
    /// (off the curve, on the twist) gives none.
    @Test func ecdhMatchesWycheproof() throws {
        let file = try TestVectors.json(ECDHFile.self, "ecdh_secp256r1_test.json")
        var valid = 0
        var invalid = 0
        for test in file.testGroups.filter({ $0.curve == "secp256r1" }).flatMap(\.tests) {
            guard let deviceKey = try Self.compressed(test.public) else { continue }
            let reader = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.scalar(test.private))
            let secret = SmartTapSessionKeys.sharedSecret(readerKey: reader, deviceKey: deviceKey)
            if test.result == "valid" || (test.result == "acceptable" && test.flags == ["CompressedPublic", "CompressedPoint"]) {
                #expect(secret?.hexString.lowercased() == test.shared, "tcId \(test.tcId)")
                valid += 1
            } else if test.result == "invalid", test.flags.contains("CompressedPoint"), test.public.hasPrefix(Self.compressedHeader) {
                #expect(secret == nil, "tcId \(test.tcId)")
                invalid += 1
            }
        }
        #expect(valid > 100)
        #expect(invalid == 7)
    }

    struct ECDSAFile: Decodable {
        struct Group: Decodable {
            struct Key: Decodable { var uncompressed: String; var curve: String }
            var publicKey: Key
            var sha: String
            var tests: [Test]
        }
        struct Test: Decodable { var tcId: Int; var msg: String; var sig: String; var result: String }
        var testGroups: [Group]
    }

    /// Wycheproof ECDSA secp256r1 SHA-256 (DER signatures, the form `sig` carries): the verifier
    /// a phone would run accepts every valid case and refuses every invalid one (the reader's own
    /// signature is verified by the test phone in `SmartTapReaderTests`).
    @Test func ecdsaMatchesWycheproof() throws {
        let file = try TestVectors.json(ECDSAFile.self, "ecdsa_secp256r1_sha256_test.json")
        var checked = 0
        for group in file.testGroups where group.publicKey.curve == "secp256r1" && group.sha == "SHA-256" {
            let key = try P256.Signing.PublicKey(x963Representation: try [UInt8](hex: group.publicKey.uncompressed))
            for test in group.tests where test.result != "acceptable" {
                let message = try [UInt8](hex: test.msg)
                let accepted = (try? P256.Signing.ECDSASignature(derRepresentation: try [UInt8](hex: test.sig)))
                    .map { key.isValidSignature($0, for: message) } ?? false
                #expect(accepted == (test.result == "valid"), "tcId \(test.tcId)")
                checked += 1
            }
        }
        #expect(checked > 300)
    }
}
