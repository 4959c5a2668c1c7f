import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct AIDTests {
    @Test(arguments: 5...16)
    func fiveToSixteenBytesAreAccepted(_ count: Int) throws {
        let bytes = (0..<count).map { UInt8(0xA0 &+ $0) }
        let aid = try AID(bytes: bytes)
        #expect(aid.bytes == bytes)
        #expect(try AID(hex: bytes.hexString) == aid)
    }

    @Test(arguments: [0, 1, 4, 17, 32])
    func otherLengthsAreRefusedWithTheLength(_ count: Int) {
        let bytes = [UInt8](repeating: 0xAB, count: count)
        #expect(throws: APDUError.invalidAIDLength(count)) { try AID(bytes: bytes) }
        #expect(throws: APDUError.invalidAIDLength(count)) { try AID(hex: bytes.hexString) }
    }

    @Test func hexIsReadInAnyCaseAndWrittenInUpperCase() throws {
        let aid = try AID(hex: "a0 00 00 00 03 10 10")
        #expect(aid.hex == "A0000000031010")
        #expect(aid.description == "A0000000031010")
        #expect(aid == (try AID(hex: "A0000000031010")))
    }

    @Test func nonHexIsRefusedWithTheHexError() {
        #expect(throws: APDUError.notHex(.invalidCharacter("G", offset: 9))) { try AID(hex: "A00000000G") }
        #expect(throws: APDUError.notHex(.oddLength(digits: 11))) { try AID(hex: "A0000000031") }
        #expect(APDUError.notHex(.oddLength(digits: 11)).description.hasPrefix("not hex: "))
    }
}
