import Testing
import VAS
import Wallets

/// The ECP frame and its CRC_A.
@Suite(.timeLimit(.minutes(1))) struct ECPFrameTests {
    /// ISO/IEC 14443-3 Annex B's worked examples of CRC_A (not ours): `00 00` → `A0 1E`,
    /// `12 34` → `26 CF`; and the HLTA command every reader sends, `50 00` → `57 CD`.
    @Test(arguments: [([UInt8(0x00), 0x00], [UInt8(0xA0), 0x1E]), ([0x12, 0x34], [0x26, 0xCF]), ([0x50, 0x00], [0x57, 0xCD])])
    func crcAMatchesTheStandardsExamples(data: [UInt8], crc: [UInt8]) {
        #expect(ECPFrame.crcA(data) == crc)
    }

    /// docs/vas-protocol.md §7.2: the VASUP-A frames with their CRC_A (`E4 D2` is also
    /// proxmark3's hard-coded `ECP_VAS_ONLY_FRAME`).
    @Test(arguments: [
        (PassMode.vasOrPayment, [UInt8(0x6A), 0x01, 0x00, 0x00, 0x00, 0xF6, 0xF1]),
        (.vasAndPayment, [0x6A, 0x01, 0x00, 0x00, 0x01, 0x7F, 0xE0]),
        (.vasOnly, [0x6A, 0x01, 0x00, 0x00, 0x02, 0xE4, 0xD2]),
    ])
    func vasFramesCarryTheModeByteOf9F26(mode: PassMode, onAir: [UInt8]) throws {
        let frame = ECPFrame(mode: mode)
        #expect(frame.bytes.last == mode.bits)
        #expect(frame.withCRC == onAir)
        #expect(frame.vasRequest == .some(mode))
        #expect(try ECPFrame(bytes: frame.bytes) == frame)
    }

    @Test func paymentOnlyAndOtherTerminalFramesAreToldApart() throws {
        let paymentOnly = try ECPFrame(bytes: [0x6A, 0x01, 0x00, 0x00, 0x03])
        #expect(paymentOnly.withCRC.suffix(2) == [0x6D, 0xC3])
        #expect(paymentOnly.vasRequest == .some(nil))
        let access = try ECPFrame(bytes: [0x6A, 0x02, 0xC2, 0x02, 0x00, 0xFF, 0xFF])
        #expect(access.vasRequest == nil)
    }

    @Test func malformedFramesAreRefused() {
        #expect(throws: ECPFrameError.notECP) { try ECPFrame(bytes: [0x52]) }
        #expect(throws: ECPFrameError.unknownVersion) { try ECPFrame(bytes: [0x6A, 0x03, 0x00, 0x00, 0x00]) }
        #expect(throws: ECPFrameError.badLength(4)) { try ECPFrame(bytes: [0x6A, 0x01, 0x00, 0x00]) }
        #expect(throws: ECPFrameError.badLength(6)) { try ECPFrame(bytes: [0x6A, 0x02, 0xC3, 0x02, 0x00, 0xFF]) }
    }
}
