import Foundation
import ISO7816
import Testing
import VAS

/// The X-only ECDH step (``MerchantKey/sharedSecret(phoneX:)``) against Wycheproof
/// `ecdh_secp256r1_test.json` (from swift-crypto's test vectors).
@Suite(.timeLimit(.minutes(1))) struct ECDHWycheproofTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var tcId: Int
        var comment: String
        var publicKeyDER: [UInt8]
        var privateKey: [UInt8]
        var shared: [UInt8]
        var testDescription: String { "tcId \(tcId): \(comment)" }
    }

    private struct File: Decodable {
        struct Group: Decodable { var curve: String; var tests: [Test] }
        struct Test: Decodable {
            var tcId: Int
            var comment: String
            var `public`: String
            var `private`: String
            var shared: String
            var result: String
            var flags: [String]
        }
        var testGroups: [Group]
    }

    /// P-256 public key prefixes: SPKI header for an uncompressed (65-byte) or compressed (33-byte) point.
    static let uncompressedHeader = "3059301306072a8648ce3d020106082a8648ce3d030107034200"
    static let compressedHeader = "3039301306072a8648ce3d020106082a8648ce3d030107032200"

    /// Cases whose public key is a well-formed P-256 SPKI with a point, compressed or not, chosen by `include`.
    static func cases(_ include: (String, [String]) -> Bool) throws -> [Case] {
        let file = try JSONDecoder().decode(File.self, from: try TestVectors.data("ecdh_secp256r1_test.json"))
        return try file.testGroups.filter { $0.curve == "secp256r1" }.flatMap(\.tests).compactMap { test in
            let wellFormed = (test.public.hasPrefix(uncompressedHeader) && test.public.count == 2 * 91)
                || (test.public.hasPrefix(compressedHeader) && test.public.count == 2 * 59)
            guard wellFormed, include(test.result, test.flags) else { return nil }
            return Case(
                tcId: test.tcId, comment: test.comment, publicKeyDER: try [UInt8](hex: test.public),
                privateKey: try [UInt8](hex: test.private), shared: try [UInt8](hex: test.shared)
            )
        }
    }

    /// Valid results, plus the "acceptable" compressed-point case (compressed keys are valid for us).
    static func validCases() throws -> [Case] {
        try cases { result, flags in result == "valid" || (result == "acceptable" && flags == ["CompressedPublic", "CompressedPoint"]) }
    }

    /// Compressed public keys Wycheproof marks invalid: X on the twist or off the curve.
    static func invalidCompressedCases() throws -> [Case] {
        try cases { result, flags in result == "invalid" && flags.contains("CompressedPoint") }.filter { $0.publicKeyDER.count == 59 }
    }

    @Test func bothPointFormsAreCovered() throws {
        let cases = try Self.validCases()
        #expect(cases.count > 100)
        #expect(cases.contains { $0.publicKeyDER.count == 59 })
        #expect(cases.contains { $0.publicKeyDER.count == 91 })
        #expect(try Self.invalidCompressedCases().count == 7)
    }

    @Test(arguments: try validCases())
    func sharedSecretFromTheXCoordinateMatches(_ testCase: Case) throws {
        // Wycheproof integers are minimal two's complement: drop a sign byte, left-pad to 32.
        let magnitude = Array(testCase.privateKey.drop { $0 == 0 })
        let scalar = [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
        let key = try MerchantKey(scalar: scalar)
        let point = Array(testCase.publicKeyDER.suffix(testCase.publicKeyDER.count == 59 ? 33 : 65))
        let x = Array(point[1...32])
        #expect(key.sharedSecret(phoneX: x) == testCase.shared)
    }

    @Test(arguments: try invalidCompressedCases())
    func anXWithNoPointOnTheCurveGivesNoSecret(_ testCase: Case) throws {
        let magnitude = Array(testCase.privateKey.drop { $0 == 0 })
        let key = try MerchantKey(scalar: [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude)
        #expect(key.sharedSecret(phoneX: Array(testCase.publicKeyDER.suffix(32))) == nil)
    }
}
