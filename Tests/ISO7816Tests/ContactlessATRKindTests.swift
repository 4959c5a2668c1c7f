import ISO7816
import Testing

// ATRs from pcsc-tools 1.6.2's smartcard_list.txt (github.com/LudovicRousseau/pcsc-tools),
// each with the description that file gives it.
@Suite struct ContactlessATRKindTests {
    static let isoDep: [(String, String)] = [
        // "RFID - ISO 14443 Type A - NXP DESFire or DESFire EV1 or EV2"
        ("3B 81 80 01 80 80", "80"),
        // "RFID - ISO 14443 Type A - NXP JCOP"
        ("3B 88 80 01 4A 43 4F 50 76 32 34 31 5E", "4A 43 4F 50 76 32 34 31"),
        // "ISO 14443 Type B without historical bytes"
        ("3B 80 80 01 01", ""),
        // "NXP Mifare DESFire EV1 8K / MF3ICD81" (the whole ATS as historical bytes)
        ("3B 86 80 01 06 75 77 81 02 80 00", "06 75 77 81 02 80"),
    ]

    @Test(arguments: isoDep)
    func contactlessSmartCardIsISODepWithItsHistoricalBytes(_ atr: String, _ historical: String) throws {
        let kind = ContactlessATR.Kind(atr: try [UInt8](hex: atr))
        #expect(kind == .isoDep(historicalBytes: try [UInt8](hex: historical)))
        #expect(kind.speaksISO7816)
    }

    static let storage: [(String, UInt8, UInt16, String?)] = [
        // "NXP/Philips MIFARE Classic 1K (as per PCSC std part3)"
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A", 0x03, 0x0001, "MIFARE Classic 1K"),
        // "RFID - ISO 14443 Type A - NXP Mifare card with 4k EEPROM"
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69", 0x03, 0x0002, "MIFARE Classic 4K"),
        // "RFID - ISO 14443 Type A - NXP Mifare Ultralight or UltralightC"
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", 0x03, 0x0003, "MIFARE Ultralight"),
        // "RFID - HID iCLASS 16K CL" (SS 0A: ISO 15693 part 2; NN 001C: PicoPass 16KS(8x2))
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0A 00 1C 00 00 00 00 7E", 0x0A, 0x001C, nil),
        // "\"Andante\" Card, Porto (Portugal) metro card": data in the 4 RFU bytes.
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 07 43 44 60 02 01 E4 EF", 0x07, 0x4344, nil),
    ]

    @Test(arguments: storage)
    func pcscPart3StorageCardIsNamedAndSpeaksNoAPDUs(_ atr: String, _ standard: UInt8, _ cardName: UInt16, _ name: String?) throws {
        let kind = ContactlessATR.Kind(atr: try [UInt8](hex: atr))
        let card = ContactlessATR.StorageCard(standard: standard, cardName: cardName)
        #expect(kind == .storageCard(card))
        #expect(!kind.speaksISO7816)
        #expect(card.name == name)
    }

    static let contact: [String] = [
        "3B 02 14 50",  // "Schlumberger Multiflex 3k"
        "3B F8 13 00 00 81 31 FE 15 59 75 62 69 6B 65 79 34 D4",  // "Yubico Yubikey 4 OTP+CCID"
        "3B 6E 00 00 80 31 80 66 B0 07 03 00 AC 01 83 00 90 00",  // "e-payment card with topup system…"
        "",
    ]

    @Test(arguments: contact)
    func contactCardIsOtherAndTakenToSpeakAPDUs(_ atr: String) throws {
        let kind = ContactlessATR.Kind(atr: try [UInt8](hex: atr))
        #expect(kind == .other)
        #expect(kind.speaksISO7816)
    }

    // Real part 3 ATRs (above) with one byte changed or cut: not part 3 ATRs any more.
    static let broken: [String] = [
        "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6B",  // TCK wrong
        "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00",  // TCK missing
        "3B 81 80 01 80 80 00",  // one byte more than T0 announces
        "3B 81 80 01 80",  // the historical byte missing (what is left is no TCK)
        "3B 81 80 02 80 83",  // TD2 names T=2, TCK still right
        "3F 81 80 01 80 80",  // inverse convention TS
    ]

    @Test(arguments: broken)
    func malformedPart3ATRIsOther(_ atr: String) throws {
        #expect(ContactlessATR.Kind(atr: try [UInt8](hex: atr)) == .other)
    }

    @Test func storageCardDescriptionGivesNameAndCodes() {
        #expect(ContactlessATR.StorageCard(standard: 0x03, cardName: 0x003A).description == "MIFARE Ultralight C (SS 03, NN 003A)")
        #expect(ContactlessATR.StorageCard(standard: 0x0B, cardName: 0x0012).description == "storage card (SS 0B, NN 0012)")
        #expect(ContactlessATR.StorageCard(standard: 0x03, cardName: 0x0026).name == "MIFARE Mini")
    }
}
