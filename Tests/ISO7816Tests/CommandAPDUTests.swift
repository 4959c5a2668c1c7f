import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct CommandAPDUTests {
    /// One encoding of each ISO/IEC 7816-4 §5.1 case, and the fields it carries.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let data: [UInt8]
        let le: Int?
        let isExtended: Bool
        var testDescription: String { name }
    }

    static let data256 = [UInt8](repeating: 0xAB, count: 256)
    static let aid: [UInt8] = [0xA0, 0x00, 0x00, 0x00, 0x03, 0x10, 0x10]

    static let cases: [Case] = [
        Case(name: "1", hex: "00A40400", data: [], le: nil, isExtended: false),
        Case(name: "2S", hex: "00B0000010", data: [], le: 16, isExtended: false),
        Case(name: "2S Le 256 as 00", hex: "00B0000000", data: [], le: 256, isExtended: false),
        Case(name: "3S", hex: "00A4040007A0000000031010", data: aid, le: nil, isExtended: false),
        Case(name: "4S", hex: "00A4040007A000000003101000", data: aid, le: 256, isExtended: false),
        Case(name: "4S Le 1", hex: "00A4040007A000000003101001", data: aid, le: 1, isExtended: false),
        Case(name: "2E", hex: "00B00000000200", data: [], le: 512, isExtended: true),
        Case(name: "2E Le 257", hex: "00B00000000101", data: [], le: 257, isExtended: true),
        Case(name: "2E Le 65536 as 0000", hex: "00B00000000000", data: [], le: 65_536, isExtended: true),
        Case(name: "3E", hex: "00DA0000000100" + data256.hexString, data: data256, le: nil, isExtended: true),
        Case(name: "4E", hex: "00DA0000000100" + data256.hexString + "0102", data: data256, le: 258, isExtended: true),
        Case(name: "4E Le 256", hex: "00DA0000000100" + data256.hexString + "0100", data: data256, le: 256, isExtended: true),
        Case(name: "4E Le 65536 as 0000", hex: "00DA0000000100" + data256.hexString + "0000", data: data256, le: 65_536, isExtended: true),
    ]

    @Test(arguments: cases)
    func everyCaseParsesToItsFields(_ c: Case) throws {
        let apdu = try CommandAPDU(bytes: try [UInt8](hex: c.hex))
        #expect(apdu.data == c.data)
        #expect(apdu.le == c.le)
        #expect(apdu.isExtended == c.isExtended)
    }

    @Test(arguments: cases)
    func everyCaseEncodesFromItsFields(_ c: Case) throws {
        let bytes = try [UInt8](hex: c.hex)
        let apdu = CommandAPDU(cla: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3], data: c.data, le: c.le)
        #expect(apdu.bytes == bytes)
        #expect(apdu.description == c.hex)
    }

    @Test func headerBytesAreKept() throws {
        let apdu = try CommandAPDU(bytes: [0x80, 0xCA, 0x01, 0x02, 0x00])
        #expect([apdu.cla, apdu.ins, apdu.p1, apdu.p2] == [0x80, 0xCA, 0x01, 0x02])
    }

    @Test func shortLe256IsEncodedAs00AndExtendedLe65536As0000() {
        #expect(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: 256).bytes.suffix(1) == [0x00])
        #expect(CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: 65_536).bytes.suffix(3) == [0x00, 0x00, 0x00])
        #expect(CommandAPDU(cla: 0, ins: 0xDA, p1: 0, p2: 0, data: Self.data256, le: 65_536).bytes.suffix(2) == [0x00, 0x00])
    }

    @Test func selectByNameIsTheISOCommandWithLeZero() throws {
        let select = CommandAPDU.select(aid: try AID(hex: "A0000000031010"))
        #expect(select.bytes.hexString == "00A4040007A000000003101000")
        #expect(select.le == 256)
        #expect(select.data == Self.aid)
    }

    @Test(arguments: [(0x1C, "00C000001C"), (0x01, "00C0000001"), (0x00, "00C0000000")] as [(UInt8, String)])
    func getResponseAsksForTheAnnouncedLength(_ length: UInt8, _ hex: String) {
        let command = CommandAPDU.getResponse(length: length)
        #expect(command.bytes.hexString == hex)
        #expect(command.le == (length == 0 ? 256 : Int(length)))
    }

    @Test(arguments: [0, 1, 2, 3])
    func fewerThanFourBytesAreRefusedAsTooShort(_ count: Int) {
        #expect(throws: APDUError.commandTooShort(length: count)) {
            try CommandAPDU(bytes: [UInt8](repeating: 0, count: count))
        }
    }

    @Test(arguments: [
        "00A4040005A0",           // short Lc 5, one byte follows
        "00A4040002A0000000",     // short Lc 2, three bytes follow
        "00A4040001A00000",       // short Lc 1, then two bytes: neither case 3S nor 4S
        "00A404000005",           // 00 then a single byte: too short for an extended length
        "00A40400000005A0",       // extended Lc 5, one byte follows
        "00A404000000000000",     // extended Lc of 0
        "00A40400000002414200",   // extended Lc 2, then a one-byte Le
    ])
    func lengthsThatDoNotMatchTheBytesAreRefused(_ hex: String) throws {
        let bytes = try [UInt8](hex: hex)
        let error = #expect(throws: APDUError.self) { try CommandAPDU(bytes: bytes) }
        guard case .inconsistentLength = error else {
            Issue.record("expected inconsistentLength, got \(String(describing: error))")
            return
        }
    }

    @Test func commandsOverThePCSCLimitAreRefused() {
        #expect(throws: APDUError.tooLong(length: CommandAPDU.maximumLength + 1)) {
            try CommandAPDU(bytes: [UInt8](repeating: 0, count: CommandAPDU.maximumLength + 1))
        }
    }

    @Test func theLongestExtendedCommandParses() throws {
        let data = [UInt8](repeating: 0x5A, count: 65_535)
        let bytes: [UInt8] = [0x00, 0xDA, 0x00, 0x00, 0x00, 0xFF, 0xFF] + data + [0x00, 0x00]
        let apdu = try CommandAPDU(bytes: bytes)
        #expect(apdu.data.count == 65_535)
        #expect(apdu.le == 65_536)
        #expect(apdu.bytes == bytes)
    }
}
