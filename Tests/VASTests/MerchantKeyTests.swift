import Crypto
import Foundation
import ISO7816
import Testing
import VAS
import Wallets

/// Key files in every accepted format, key ids, public key export and redaction.
@Suite(.timeLimit(.minutes(1))) struct MerchantKeyTests {
    /// Each file holds the PassKit demo key of vas-protocol.md §8.1 (made with openssl; see SOURCES.md).
    @Test(arguments: [
        "passkit-sec1.pem", "passkit-sec1-with-params.pem", "passkit-sec1-no-public.pem", "passkit-pkcs8.pem",
        "passkit-sec1.der", "passkit-pkcs8.der", "passkit-scalar.hex",
    ])
    func everyFormatOfThePassKitKeyGivesItsPublishedKeyID(file: String) throws {
        let key = try MerchantKey(keyFileContents: TestVectors.bytes("Keys/" + file), path: file)
        #expect(key.keyID.hex == TestVectors.passKitKeyID)
        #expect(key.publicKeyX == (try [UInt8](hex: TestVectors.passKitX)))
    }

    @Test func hexScalarsMayBeSpacedOrColonSeparated() throws {
        let spaced = TestVectors.passKitScalar.enumerated().map { $0.offset % 2 == 1 ? "\($0.element):" : "\($0.element)" }.joined()
        let key = try MerchantKey(keyFileContents: Array(("  " + spaced + "\n").utf8))
        #expect(key.keyID.hex == TestVectors.passKitKeyID)
    }

    @Test func anEmbeddedPublicKeyIsIgnoredAndDerivedFromTheScalar() throws {
        // SEC1 DER of the PassKit scalar whose [1] public key is another key's point.
        var der = try TestVectors.bytes("Keys/passkit-sec1.der")
        let other = MerchantKey.generate()
        let otherPoint = Array(other.publicKey.x963Representation)
        der.replaceSubrange((der.count - 65)..., with: otherPoint)
        let key = try MerchantKey(keyFileContents: der)
        #expect(key.keyID.hex == TestVectors.passKitKeyID)
        #expect(key.keyID != other.keyID)
    }

    @Test(arguments: ["p384-sec1.pem", "p384-pkcs8.pem", "ed25519-pkcs8.pem"])
    func keysOfOtherCurvesAreRefusedAsNotP256(file: String) throws {
        let bytes = try TestVectors.bytes("Keys/" + file)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(keyFileContents: bytes, path: "/etc/k/" + file) }
        #expect(error?.code == .notP256)
        #expect(error?.path == "/etc/k/" + file)
        #expect(error?.description.contains("/etc/k/" + file) == true)
    }

    @Test(arguments: ["passkit-encrypted.pem", "passkit-legacy-encrypted.pem"])
    func encryptedKeysAreRefusedWithAWayOut(file: String) throws {
        let bytes = try TestVectors.bytes("Keys/" + file)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(keyFileContents: bytes) }
        #expect(error?.code == .encrypted)
        #expect(error?.reason.contains("openssl") == true)
    }

    @Test(arguments: [
        ("hello world", MerchantKeyError.Code.unrecognizedFormat),
        ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", .unrecognizedFormat),
        ("abcd", .invalidScalar),
        (String(repeating: "0", count: 64), .invalidScalar),
        (String(repeating: "f", count: 64), .invalidScalar),
    ])
    func unusableContentsAreRefusedByCode(contents: String, code: MerchantKeyError.Code) {
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(keyFileContents: Array(contents.utf8)) }
        #expect(error?.code == code)
    }

    @Test func pemWithCRLFLinesIndentationAndHeadersIsRead() throws {
        let pem = String(decoding: try TestVectors.bytes("Keys/passkit-sec1.pem"), as: UTF8.self)
        let lines = pem.split(separator: "\n").map { "  \($0)\t" }
        let text = lines.joined(separator: "\r\n") + "\r\n"
        #expect(try MerchantKey(keyFileContents: Array(text.utf8)).keyID.hex == TestVectors.passKitKeyID)
    }

    /// Ways to spoil a PEM body's Base64.
    enum Spoiling: String, CaseIterable, Sendable {
        case characterOutsideTheAlphabet, lengthNotAMultipleOfFour, paddingInTheMiddle, dataAfterPadding

        func apply(_ body: String) -> String {
            switch self {
            case .characterOutsideTheAlphabet: "*" + body.dropFirst()
            case .lengthNotAMultipleOfFour: body + "A"
            case .paddingInTheMiddle: "AA==" + body
            case .dataAfterPadding: String(body.dropLast(4)) + "A=AA"
            }
        }
    }

    /// The PEM body is decoded by our own Base64 reader (so the decoded key is in a buffer we zero):
    /// it must refuse what is not Base64, as Foundation's did.
    @Test(arguments: Spoiling.allCases)
    func aPEMBodyThatIsNotBase64IsRefused(spoiling: Spoiling) throws {
        let pem = String(decoding: try TestVectors.bytes("Keys/passkit-pkcs8.pem"), as: UTF8.self)
        let lines = pem.split(separator: "\n").map(String.init)
        let body = lines.filter { !$0.hasPrefix("-----") }.joined()
        let text = "\(lines.first!)\n\(spoiling.apply(body))\n\(lines.last!)\n"
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(keyFileContents: Array(text.utf8)) }
        #expect(error?.code == .unrecognizedFormat)
        #expect(error?.reason.contains("not valid Base64") == true, "\(String(describing: error))")
    }

    @Test func truncatedDERIsRefusedNotTrapped() throws {
        let der = try TestVectors.bytes("Keys/passkit-sec1.der")
        for length in 1..<der.count where length != 0 {
            #expect(throws: MerchantKeyError.self) { try MerchantKey(keyFileContents: Array(der.prefix(length))) }
        }
    }

    @Test func compressedSPKIMatchesThePublishedPassJSONValue() throws {
        let key = try TestVectors.passKitKey()
        // vas-protocol.md §6 says "57 bytes DER": that is the SEQUENCE's content; with its header it is 59.
        #expect(key.compressedPublicKeySPKI.count == 59)
        #expect(key.compressedPublicKeySPKI[1] == 57)
        #expect(key.compressedPublicKeySPKIBase64 == TestVectors.passKitSPKIBase64)
        #expect(MerchantKey.generate().compressedPublicKeySPKIBase64.hasPrefix("MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgA"))
    }

    @Test(arguments: MerchantKeyFormat.allCases)
    func writtenKeysReadBackWithTheSameIDAndMode0600(format: MerchantKeyFormat) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = MerchantKey.generate()
        let path = directory.path + "/key.pem"
        try key.write(toFile: path, format: format)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix(format == .sec1 ? "-----BEGIN EC PRIVATE KEY-----\n" : "-----BEGIN PRIVATE KEY-----\n"))
        #expect(try MerchantKey(contentsOfFile: path).keyID == key.keyID)
    }

    @Test func writingNeverReplacesAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.file("existing.pem", bytes: Array("keep me".utf8), mode: 0o600)
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey.generate().write(toFile: path, format: .sec1) }
        #expect(error?.code == .alreadyExists)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    @Test func descriptionsAreRedacted() throws {
        let key = try TestVectors.passKitKey()
        let scalar = TestVectors.passKitScalar
        #expect(key.description == "MerchantKey(id: C0B77375, <redacted>)")
        for text in [String(describing: key), String(reflecting: key), "\(key)", { var out = ""; dump(key, to: &out); return out }()] {
            #expect(!text.lowercased().contains(scalar))
            #expect(!text.lowercased().contains(scalar.prefix(8)))
            #expect(text.contains("C0B77375"))
        }
    }

    @Test func errorsNeverContainKeyMaterial() throws {
        // A SEC1 file whose scalar is 33 bytes: the error must describe, not echo, it.
        var der = try TestVectors.bytes("Keys/passkit-sec1.der")
        der[6] = 0x21
        let error = #expect(throws: MerchantKeyError.self) { try MerchantKey(keyFileContents: der) }
        let text = "\(String(describing: error)) \(error?.reason ?? "")".lowercased()
        #expect(!text.contains(TestVectors.passKitScalar.prefix(8)))
    }
}
