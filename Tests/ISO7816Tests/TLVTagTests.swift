import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct TLVTagTests {
    @Test(arguments: [(0x70, [0x70]), (0x9F27, [0x9F, 0x27]), (0xDF8101, [0xDF, 0x81, 0x01]),
                      (0x9F818203, [0x9F, 0x81, 0x82, 0x03]), (0x00, [0x00])] as [(UInt32, [UInt8])])
    func integerLiteralsAreTheEncodedBytes(_ literal: UInt32, _ bytes: [UInt8]) {
        #expect(TLVTag(integerLiteral: literal).bytes == bytes)
        #expect(TLVTag(integerLiteral: literal) == TLVTag(bytes: bytes))
        #expect(TLVTag(integerLiteral: literal).hex == bytes.hexString)
    }

    @Test(arguments: [(0x6F, true), (0x70, true), (0xA5, true), (0xBF0C, true),
                      (0x50, false), (0x9F27, false), (0x87, false), (0x5F2D, false)] as [(UInt32, Bool)])
    func bit6OfTheFirstByteMarksConstructedObjects(_ literal: UInt32, _ constructed: Bool) {
        #expect(TLVTag(integerLiteral: literal).isConstructed == constructed)
    }

    @Test func anEmptyTagIsPrimitive() {
        #expect(!TLVTag(bytes: []).isConstructed)
    }
}
