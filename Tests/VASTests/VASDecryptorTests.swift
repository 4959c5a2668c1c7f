import Crypto
import Foundation
import ISO7816
import Testing
import VAS

/// The published and synthetic vectors of vas-protocol.md §8 and round trips through the sealer.
@Suite(.timeLimit(.minutes(1))) struct VASDecryptorTests {
    // §8.2: kormax/apple-vas examples/traces/VASONLY.READ.log
    static let vector1 = "c0b77375d3f37956d84a538f28ac2a04b38ddc1a67d3647a4dd30abd736ea1cea8038388692e89db99e4746d872de782395640c536e79a75c47a9343da0af3937f06eeca7a865c4ad05a2c543ad2"
    // §8.4: kormax/apple-vas README, key id altered to BEEF7375
    static let vector3 = "beef7375094afa4824addb8abf0a59f4c5b88f7b33cd803666cdf358dc8aa2ecea863673b7e92b8f39bc744233dda87e53f2ae346eb43415e7b20a50aa41e02de9f3d533f506e29b4ed31eaa9cfa"
    // §8.5: synthetic vectors made by the research
    static let syntheticA = "c0b7737598b29d717d330d6d0fb5ada5a283406dc2717166f47b20f610f713a581e1351981c5b98371a3509c30dfadb073074ba73c994e8a7862de0f7cf085272e37d98785f58abb804605"
    static let syntheticB = "c0b7737598b29d717d330d6d0fb5ada5a283406dc2717166f47b20f610f713a581e135196aab655f54cd9ea9fb2e326c812cb7d6b316435d0acc0bcb4b44af679b8e3ca73387ca0ab079a3"
    static let syntheticEphemeral = "45bda3cffff918f2cefd9dc2e36d9e931494b2d43be3a2f98ae37f63dfb02f80"

    func decryptor(checksKeyID: Bool = true, keys: [MerchantKey]? = nil) throws -> VASDecryptor {
        VASDecryptor(
            passTypeIdentifier: try TestVectors.passKitPass(), keys: try keys ?? [TestVectors.passKitKey()],
            checksKeyID: checksKeyID
        )
    }

    @Test func publishedTraceDecryptsToItsPublishedTimestampAndMessage() throws {
        let result = try decryptor().decrypt([UInt8](hex: Self.vector1))
        #expect(result.status == .success)
        #expect(result.variant == .a)
        #expect(result.keyID?.hex == TestVectors.passKitKeyID)
        let payload = try #require(result.payload)
        #expect(payload.plaintext == (try [UInt8](hex: "2a5b196e366431556c46706e4f63353069564b5261626f444f4b")))
        #expect(payload.timestampRaw == 710_613_358)
        #expect(payload.unixTime == 710_613_358 + 978_307_200)
        #expect(payload.messageText == "6d1UlFpnOc50iVKRaboDOK")
        #expect(payload.messageHex == "366431556C46706E4F63353069564B5261626F444F4B")
        let expected = DateComponents(
            calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"),
            year: 2023, month: 7, day: 9, hour: 16, minute: 35, second: 58
        ).date
        #expect(payload.date == expected)
    }

    @Test func publishedTraceHasThePublishedSharedSecretAndKey() throws {
        let key = try TestVectors.passKitKey()
        let cryptogram = try #require(VASCryptogram(bytes: [UInt8](hex: Self.vector1)))
        let z = try #require(key.sharedSecret(phoneX: cryptogram.ephemeralX))
        #expect(z == (try [UInt8](hex: "63813b5efcc1d744b0888ca05d52dad97b73731f4c3b3283655b6a3219263911")))
        let sharedInfo = VASCipherVariant.a.sharedInfo(passHash: try TestVectors.passKitPass().sha256)
        #expect(sharedInfo.hexString.lowercased() == "0d69642d6165733235362d47434d4170706c6550617920656e6372797074656420564153206461746103b57cdb3eca0984ba9abdc2fb45d86626d87b39d33c5c6dbbc313a6347a3146")
        let k = X963KDF.sha256(sharedSecret: z, sharedInfo: sharedInfo)
        #expect(k == (try [UInt8](hex: "c5a7023fe339ea5a39f0b3fba2defdacd37b639e96028daf6dbd362c32b291bf")))
    }

    @Test func alteredKeyIDGivesNoMatchingKeyNamingTheID() throws {
        let result = try decryptor().decrypt([UInt8](hex: Self.vector3))
        #expect(result.status == .noMatchingKey)
        #expect(result.keyID?.hex == "BEEF7375")
        #expect(result.payload == nil)
        #expect(result.problem?.contains("BEEF7375") == true)
    }

    @Test func alteredKeyIDDecryptsWhenTheKeyIDCheckIsOff() throws {
        let result = try decryptor(checksKeyID: false).decrypt([UInt8](hex: Self.vector3))
        #expect(result.status == .success)
        #expect(result.payload?.timestampRaw == 709_810_258)
        #expect(result.payload?.messageText == "6d1UlFpnOc50iVKRaboDOK")
    }

    @Test(arguments: [(VASCipherVariant.a, syntheticA, "1029c58570851e6880c0f68c84395efafa225662aa1c5e2dd5372770600e403a"),
                      (VASCipherVariant.b, syntheticB, "b33d153322088b785641fae3dae318685a654d795f62c1e67646dc2d155a1047")])
    func syntheticVectorDecryptsWithItsVariantAndKey(variant: VASCipherVariant, hex: String, kHex: String) throws {
        let result = try decryptor().decrypt([UInt8](hex: hex))
        #expect(result.status == .success)
        #expect(result.variant == variant)
        #expect(result.payload?.timestampRaw == 0x2A5B_196E)
        #expect(result.payload?.messageText == "SYNTHETIC-TEST-0001")

        let cryptogram = try #require(VASCryptogram(bytes: [UInt8](hex: hex)))
        #expect(cryptogram.ephemeralX.hexString.lowercased() == "98b29d717d330d6d0fb5ada5a283406dc2717166f47b20f610f713a581e13519")
        let z = try #require(try TestVectors.passKitKey().sharedSecret(phoneX: cryptogram.ephemeralX))
        #expect(z.hexString.lowercased() == "7e5e1efd079e84962900e7c437e0ab3c7c7505d3ad66031848daeffd6f3418b3")
        let k = X963KDF.sha256(sharedSecret: z, sharedInfo: variant.sharedInfo(passHash: try TestVectors.passKitPass().sha256))
        #expect(k.hexString.lowercased() == kHex)
    }

    @Test(arguments: VASCipherVariant.allCases)
    func sealerReproducesTheSyntheticVectorsFromTheirEphemeralKey(variant: VASCipherVariant) throws {
        let ephemeral = try P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](hex: Self.syntheticEphemeral))
        let cryptogram = try VASCryptogramSealer.seal(
            payload: VASPayload(timestampRaw: 0x2A5B_196E, message: Array("SYNTHETIC-TEST-0001".utf8)),
            merchantPublicKey: TestVectors.passKitKey().publicKey,
            passTypeIdentifier: TestVectors.passKitPass(), variant: variant, ephemeralKey: ephemeral
        )
        #expect(cryptogram.bytes.hexString.lowercased() == (variant == .a ? Self.syntheticA : Self.syntheticB))
    }

    @Test(arguments: VASCipherVariant.allCases, [0, 1, 22, 64])
    func sealedCryptogramsRoundTripWithFreshKeys(variant: VASCipherVariant, messageLength: Int) throws {
        let merchant = MerchantKey.generate()
        let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let cryptogram = try VASCryptogramSealer.seal(
            payload: VASPayload(timestampRaw: 800_000_000, message: message),
            merchantPublicKey: merchant.publicKey, passTypeIdentifier: PassTypeIdentifier("pass.test.round-trip"),
            variant: variant
        )
        #expect(cryptogram.bytes.count == 4 + 32 + 4 + messageLength + 16)
        #expect(cryptogram.keyID == merchant.keyID)
        let result = VASDecryptor(passTypeIdentifier: try PassTypeIdentifier("pass.test.round-trip"), keys: [merchant]).decrypt(cryptogram)
        #expect(result.status == .success)
        #expect(result.variant == variant)
        #expect(result.payload?.message == message)
    }

    @Test func theKeyWhoseIDMatchesIsChosenAmongRotatedKeys() throws {
        let old = MerchantKey.generate()
        let result = try decryptor(keys: [old, TestVectors.passKitKey(), MerchantKey.generate()]).decrypt([UInt8](hex: Self.vector1))
        #expect(result.status == .success)
        #expect(result.payload?.messageText == "6d1UlFpnOc50iVKRaboDOK")
    }

    @Test func anotherPassTypeIDFailsTheTagCheck() throws {
        let other = VASDecryptor(passTypeIdentifier: try PassTypeIdentifier("pass.com.example.other"), keys: [try TestVectors.passKitKey()])
        let result = other.decrypt(try [UInt8](hex: Self.vector1))
        #expect(result.status == .decryptFailed)
        #expect(result.keyID?.hex == TestVectors.passKitKeyID)
        #expect(result.payload == nil)
    }

    @Test func aFlippedCiphertextBitFailsTheTagCheck() throws {
        var bytes = try [UInt8](hex: Self.vector1)
        bytes[40] ^= 0x01
        #expect(try decryptor().decrypt(bytes).status == .decryptFailed)
    }

    @Test func anEphemeralXOffTheCurveIsRejected() throws {
        var bytes = try [UInt8](hex: Self.vector1)
        // Find an X with no point on P-256 (about half of all values), then put it in the cryptogram.
        let key = try TestVectors.passKitKey()
        var x = [UInt8](repeating: 0, count: 32)
        var candidate: UInt8 = 0
        repeat {
            candidate += 1
            x[31] = candidate
        } while key.sharedSecret(phoneX: x) != nil
        bytes.replaceSubrange(4..<36, with: x)
        let result = try decryptor().decrypt(bytes)
        #expect(result.status == .decryptFailed)
        #expect(result.problem?.contains("not on P-256") == true)
    }

    @Test(arguments: [0, 3, 55, 121, 200])
    func impossibleLengthsAreMalformed(length: Int) throws {
        let bytes = Array((try [UInt8](hex: Self.vector1) + [UInt8](repeating: 0xAA, count: 200)).prefix(length))
        let result = try decryptor().decrypt(bytes)
        #expect(result.status == .malformedResponse)
        #expect(result.keyID?.hex == (length >= 4 ? TestVectors.passKitKeyID : nil))
    }

    @Test func sealingRefusesMessagesOver64Bytes() throws {
        let key = try TestVectors.passKitKey()
        let pass = try TestVectors.passKitPass()
        let error = #expect(throws: VASCommandError.self) {
            try VASCryptogramSealer.seal(
                payload: VASPayload(timestampRaw: 1, message: [UInt8](repeating: 0x41, count: 65)),
                merchantPublicKey: key.publicKey, passTypeIdentifier: pass
            )
        }
        #expect(error?.code == .messageTooLong)
    }
}
