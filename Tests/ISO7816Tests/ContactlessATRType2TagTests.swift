import ISO7816
import Testing

/// Which memory cards PassTap reads pages of: Type 2 tags (Ultralight family, NTAG), never
/// MIFARE Classic. ATRs from pcsc-tools' smartcard_list.txt (as in ContactlessATRKindTests);
/// ATQA and SAK from NXP AN10833's identification table.
@Suite struct ContactlessATRType2TagTests {
    static let byATR: [(String, Bool)] = [
        // "NXP Mifare Ultralight or UltralightC" (NN 0003): what an ACR122U also gives an NTAG.
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", true),
        // "NXP/Philips MIFARE Classic 1K (as per PCSC std part3)" (NN 0001)
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A", false),
        // "RFID - ISO 14443 Type A - NXP Mifare card with 4k EEPROM" (NN 0002)
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69", false),
        // "RFID - HID iCLASS 16K CL" (SS 0A, NN 001C)
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0A 00 1C 00 00 00 00 7E", false),
    ]

    @Test(arguments: byATR)
    func storageCardIsAType2TagOnlyForAnUltralightName(_ atr: String, _ isType2: Bool) throws {
        guard case .storageCard(let card) = ContactlessATR.Kind(atr: try [UInt8](hex: atr)) else {
            Issue.record("\(atr) is no storage card")
            return
        }
        #expect(card.isType2Tag == isType2, "\(card)")
    }

    @Test func ultralightCAndEV1AreType2TagsButMiniAndAnotherStandardAreNot() {
        #expect(ContactlessATR.StorageCard(standard: 0x03, cardName: 0x003A).isType2Tag)
        #expect(ContactlessATR.StorageCard(standard: 0x03, cardName: 0x003D).isType2Tag)
        #expect(!ContactlessATR.StorageCard(standard: 0x03, cardName: 0x0026).isType2Tag)
        // An Ultralight name under ISO 15693 (SS 0B) is no Type 2 tag.
        #expect(!ContactlessATR.StorageCard(standard: 0x0B, cardName: 0x0003).isType2Tag)
    }

    static let byActivation: [([UInt8], UInt8, Bool)] = [
        ([0x00, 0x44], 0x00, true),  // Ultralight, Ultralight C, EV1, NTAG
        ([0x00, 0x04], 0x08, false),  // MIFARE Classic 1K
        ([0x00, 0x02], 0x18, false),  // MIFARE Classic 4K
        ([0x00, 0x44], 0x08, false),  // Classic 1K with a 7-byte UID
        ([0x00, 0x44], 0x20, false),  // DESFire: ISO-DEP
        ([0x00, 0x04], 0x00, false),  // SAK 00 with a single-size UID: not an NXP Type 2 tag
    ]

    @Test(arguments: byActivation)
    func aTypeACardIsAType2TagForATQA0044AndSAK00(_ atqa: [UInt8], _ sak: UInt8, _ isType2: Bool) {
        #expect(ContactlessATR.isType2Tag(atqa: atqa, sak: sak) == isType2)
    }
}
