import ISO7816
import Testing

@Suite struct CommandAPDUTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let data: Int
        let le: Int?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(name: "1", hex: "00A40400", data: 0, le: nil),
        .init(name: "2S", hex: "00B0000010", data: 0, le: 16),
        .init(name: "2S Le 256", hex: "00B0000000", data: 0, le: 256),
        .init(name: "3S", hex: "00A4040007A0000000031010", data: 7, le: nil),
        .init(name: "4S", hex: "00A4040007A000000003101000", data: 7, le: 256),
        .init(name: "2E", hex: "00B00000000200", data: 0, le: 512),
        .init(name: "2E Le 65536", hex: "00B00000000000", data: 0, le: 65_536),
        .init(name: "3E", hex: "00DA0000000100" + String(repeating: "AB", count: 256), data: 256, le: nil),
        .init(name: "4E", hex: "00DA0000000100" + String(repeating: "AB", count: 256) + "0000", data: 256, le: 65_536),
    ]

    @Test(arguments: cases)
    func everyCaseParsesAndEncodesBackToTheSameBytes(_ c: Case) throws {
        let bytes = try [UInt8](hex: c.hex)
        let apdu = try CommandAPDU(bytes: bytes)
        #expect(apdu.data.count == c.data)
        #expect(apdu.le == c.le)
        #expect(apdu.bytes == bytes)
    }

    @Test func selectByNameIsTheISOCommandWithLeZero() throws {
        #expect(CommandAPDU.select(aid: try AID(hex: "A0000000031010")).bytes.hexString == "00A4040007A000000003101000")
    }

    @Test func getResponseAsksForTheAnnouncedLength() {
        #expect(CommandAPDU.getResponse(length: 0x1C).bytes == [0x00, 0xC0, 0x00, 0x00, 0x1C])
        #expect(CommandAPDU.getResponse(length: 0x00).bytes == [0x00, 0xC0, 0x00, 0x00, 0x00])
    }

    @Test(arguments: ["", "00", "00A404", "00A4040005A0", "00A4040002A0000000", "00A40400000005A0"])
    func malformedCommandsAreRejected(_ hex: String) throws {
        let bytes = try [UInt8](hex: hex)
        #expect(throws: APDUError.self) { try CommandAPDU(bytes: bytes) }
    }

    @Test func commandsOverThePCSCLimitAreRejected() {
        #expect(throws: APDUError.tooLong(length: 65_549)) { try CommandAPDU(bytes: [UInt8](repeating: 0, count: 65_549)) }
    }

    @Test func responseSplitsDataAndStatusWord() throws {
        let response = try ResponseAPDU(bytes: [0x01, 0x02, 0x6A, 0x82])
        #expect(response.data == [0x01, 0x02])
        #expect(response.statusWord == .fileNotFound)
        #expect(response.bytes == [0x01, 0x02, 0x6A, 0x82])
        #expect(throws: APDUError.responseTooShort(length: 1)) { try ResponseAPDU(bytes: [0x90]) }
    }
}
