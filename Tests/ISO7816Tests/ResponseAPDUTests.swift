import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct ResponseAPDUTests {
    @Test func theLastTwoBytesAreTheStatusWordAndTheRestIsData() throws {
        let response = try ResponseAPDU(bytes: [0x01, 0x02, 0x6A, 0x82])
        #expect(response.data == [0x01, 0x02])
        #expect(response.statusWord == .fileNotFound)
    }

    @Test func aBareStatusWordHasNoData() throws {
        let response = try ResponseAPDU(bytes: [0x90, 0x00])
        #expect(response.data.isEmpty)
        #expect(response.statusWord.isSuccess)
    }

    @Test(arguments: [0, 1])
    func fewerThanTwoBytesAreRefused(_ count: Int) {
        #expect(throws: APDUError.responseTooShort(length: count)) {
            try ResponseAPDU(bytes: [UInt8](repeating: 0x90, count: count))
        }
    }

    @Test(arguments: ["9000", "6A82", "0102039000", "6F1D50084170706C65506179" + "9000"])
    func bytesRoundTrip(_ hex: String) throws {
        let bytes = try [UInt8](hex: hex)
        let response = try ResponseAPDU(bytes: bytes)
        #expect(response.bytes == bytes)
        #expect(response.description == hex)
    }

    @Test func builtResponsesEncodeDataThenStatus() {
        let response = ResponseAPDU(data: [0xAA], statusWord: StatusWord(sw1: 0x61, sw2: 0x10))
        #expect(response.bytes == [0xAA, 0x61, 0x10])
    }
}
