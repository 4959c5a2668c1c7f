import Foundation
import ISO7816
import Testing
import VAS

/// ``VASGCM`` (swift-crypto's AES.GCM with a 16-byte IV) against the 128-bit-IV cases of
/// Wycheproof `aes_gcm_test.json` (from swift-crypto's test vectors).
@Suite(.timeLimit(.minutes(1))) struct AESGCMWycheproofTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var tcId: Int
        var key: [UInt8]
        var iv: [UInt8]
        var aad: [UInt8]
        var msg: [UInt8]
        var ct: [UInt8]
        var tag: [UInt8]
        var valid: Bool
        var testDescription: String { "tcId \(tcId) (key \(key.count * 8) bits, \(valid ? "valid" : "invalid"))" }
    }

    private struct File: Decodable {
        struct Group: Decodable { var ivSize: Int; var tagSize: Int; var tests: [Test] }
        struct Test: Decodable {
            var tcId: Int
            var key: String
            var iv: String
            var aad: String
            var msg: String
            var ct: String
            var tag: String
            var result: String
        }
        var testGroups: [Group]
    }

    static func sixteenByteIVCases() throws -> [Case] {
        let file = try JSONDecoder().decode(File.self, from: try TestVectors.data("aes_gcm_test.json"))
        return try file.testGroups.filter { $0.ivSize == 128 && $0.tagSize == 128 }.flatMap(\.tests).map { test in
            Case(
                tcId: test.tcId, key: try [UInt8](hex: test.key), iv: try [UInt8](hex: test.iv),
                aad: try [UInt8](hex: test.aad), msg: try [UInt8](hex: test.msg), ct: try [UInt8](hex: test.ct),
                tag: try [UInt8](hex: test.tag), valid: test.result != "invalid"
            )
        }
    }

    @Test func aes256WithSixteenByteIVsIsCovered() throws {
        let cases = try Self.sixteenByteIVCases()
        #expect(cases.contains { $0.key.count == 32 && $0.valid })
        #expect(cases.allSatisfy { $0.iv.count == 16 })
    }

    @Test(arguments: try sixteenByteIVCases())
    func openingMatchesWycheproof(_ testCase: Case) {
        let opened = VASGCM.open(key: testCase.key, iv: testCase.iv, ciphertext: testCase.ct, tag: testCase.tag, authenticatedData: testCase.aad)
        if testCase.valid {
            #expect(opened == testCase.msg)
            var tag = testCase.tag
            tag[tag.count - 1] ^= 0x80
            #expect(VASGCM.open(key: testCase.key, iv: testCase.iv, ciphertext: testCase.ct, tag: tag, authenticatedData: testCase.aad) == nil)
        } else {
            #expect(opened == nil)
        }
    }

    @Test(arguments: try sixteenByteIVCases().filter(\.valid))
    func sealingMatchesWycheproof(_ testCase: Case) throws {
        let sealed = try VASGCM.seal(key: testCase.key, iv: testCase.iv, plaintext: testCase.msg, authenticatedData: testCase.aad)
        #expect(sealed.ciphertext == testCase.ct)
        #expect(sealed.tag == testCase.tag)
    }

    @Test func aTwelveByteZeroIVGivesADifferentKeystreamThanSixteen() throws {
        let key = [UInt8](repeating: 0x42, count: 32)
        let plaintext = [UInt8](repeating: 0, count: 16)
        let sixteen = try VASGCM.seal(key: key, plaintext: plaintext, authenticatedData: [])
        let twelve = try VASGCM.seal(key: key, iv: [UInt8](repeating: 0, count: 12), plaintext: plaintext, authenticatedData: [])
        #expect(VASGCM.iv.count == 16)
        #expect(sixteen.ciphertext != twelve.ciphertext)
    }
}
