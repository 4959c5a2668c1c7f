import ISO7816
import Testing

// Type A activation data we did not make:
// - libnfc wiki's ISO 14443 tag table (www.libnfc.org/documentation/hardware/tags/iso14443):
//   ATQA, SAK and ATS per product, the ATS printed from T0 on (no TL), as libnfc keeps it; except
//   its DESFire row, "06 75 77 81 02 80", which has TL (06 counts the 6 bytes).
// - A Proxmark3 `hf search` of a DESFire EV2: "SAK: 20 [1]", "ATS: 06 75 77 81 02 80 [ 02 F0 ]"
//   (TL first, CRC in brackets).
// - `nfc-list` on an Android phone (HCE): "SAK (SEL_RES): 20", "ATS: 78 80 70 00".
// The ATRs they must give: pcsc-tools 1.6.2's smartcard_list.txt, with its description.
@Suite struct ContactlessATRISO14443ATests {
    /// (libnfc ATS without TL, historical bytes, ATR from smartcard_list.txt).
    static let libnfcATS: [(String, String, String)] = [
        // libnfc: "JCOP31 v2.4.1  00 48  20  78 77 b1 02 4a 43 4f 50 76 32 34 31" (TA1 TB1 TC1)
        // smartcard_list: "3B 88 80 01 4A 43 4F 50 76 32 34 31 5E  RFID - ISO 14443 Type A - NXP JCOP"
        ("78 77 B1 02 4A 43 4F 50 76 32 34 31", "4A 43 4F 50 76 32 34 31", "3B 88 80 01 4A 43 4F 50 76 32 34 31 5E"),
        // libnfc: "JCOP41 v2.2  00 48  20  38 33 b1 4a 43 4f 50 34 31 56 32 32" (TA1 TB1)
        // smartcard_list: "3B 89 80 01 4A 43 4F 50 34 31 56 32 32 4D  JCOP41 Cards …"
        ("38 33 B1 4A 43 4F 50 34 31 56 32 32", "4A 43 4F 50 34 31 56 32 32", "3B 89 80 01 4A 43 4F 50 34 31 56 32 32 4D"),
        // libnfc: "JCOP31  03 04  28  38 77 b1 4a 43 4f 50 33 31"
        // smartcard_list: "3B 86 80 01 4A 43 4F 50 33 31 13  JCOP BIO 31 Contactless Card"
        ("38 77 B1 4A 43 4F 50 33 31", "4A 43 4F 50 33 31", "3B 86 80 01 4A 43 4F 50 33 31 13"),
        // nfc-list, Android HCE: "ATS: 78 80 70 00": TA1 TB1 TC1 and no historical bytes;
        // smartcard_list: "3B 80 80 01 01" (no historical bytes)
        ("78 80 70 00", "", "3B 80 80 01 01"),
    ]

    @Test(arguments: libnfcATS)
    func libnfcATSGivesTheATRReadersReport(_ ats: String, _ historical: String, _ atr: String) throws {
        let atsBytes = try [UInt8](hex: ats)
        #expect(try ContactlessATR.historicalBytes(atsAfterLength: atsBytes) == (try [UInt8](hex: historical)))
        #expect(ContactlessATR.iso14443A(sak: 0x20, atsAfterLength: atsBytes) == (try [UInt8](hex: atr)))
        // The same ATS with its TL in front.
        #expect(try ContactlessATR.historicalBytes(ats: [UInt8(atsBytes.count + 1)] + atsBytes) == (try [UInt8](hex: historical)))
    }

    @Test func desfireATSWithLengthByteGivesTheDESFireATR() throws {
        // libnfc wiki and Proxmark3: DESFire (EV1, EV2) ATS "06 75 77 81 02 80", TL first;
        // smartcard_list: "3B 81 80 01 80 80  RFID - ISO 14443 Type A - NXP DESFire or DESFire EV1 or EV2".
        let historical = try ContactlessATR.historicalBytes(ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(historical == [0x80])
        #expect(ContactlessATR.isoDep(historicalBytes: historical) == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
        // As libnfc hands it over (TL gone): "75 77 81 02 80".
        #expect(ContactlessATR.iso14443A(sak: 0x20, atsAfterLength: [0x75, 0x77, 0x81, 0x02, 0x80]) == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
    }

    /// (SAK, ISO 14443-4?) from the libnfc wiki table and the Proxmark3 and nfc-list outputs above.
    static let saks: [(UInt8, Bool)] = [
        (0x09, false),  // MIFARE Mini
        (0x08, false),  // MIFARE Classic 1K
        (0x18, false),  // MIFARE Classic 4K
        (0x00, false),  // MIFARE Ultralight
        (0x88, false),  // Infineon MIFARE Classic 1K
        (0x20, true),  // MIFARE DESFire (EV1), JCOP31 v2.4.1, an Android phone
        (0x28, true),  // JCOP31, JCOP41 v2.3.1 (ISO-DEP and MIFARE Classic emulation)
    ]

    @Test(arguments: saks)
    func sakBit6TellsISO14443_4(_ sak: UInt8, _ compliant: Bool) {
        #expect(ContactlessATR.isISO14443_4(sak: sak) == compliant)
    }

    /// (SAK from the libnfc wiki table, ATR from smartcard_list.txt for the same product).
    static let storageSAKs: [(UInt8, String)] = [
        // "MIFARE Classic 1K  00 04  08"; "NXP/Philips MIFARE Classic 1K (as per PCSC std part3)"
        (0x08, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"),
        // "MIFARE Classic 4K  00 02  18"; "RFID - ISO 14443 Type A - NXP Mifare card with 4k EEPROM"
        (0x18, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69"),
        // "MIFARE Ultralight  00 44  00"; "RFID - ISO 14443 Type A - NXP Mifare Ultralight or UltralightC"
        (0x00, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68"),
        // "Infineon MIFARE Classic 1K  00 04  88": SAK alone does not name it; "Card name not given"
        (0x88, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 00 00 00 00 00 6B"),
    ]

    @Test(arguments: storageSAKs)
    func storageCardSAKGivesThePart3StorageATR(_ sak: UInt8, _ atr: String) throws {
        // An ATS given anyway is not read: without SAK bit 6 there is no ISO-DEP.
        #expect(ContactlessATR.iso14443A(sak: sak, atsAfterLength: [0x75, 0x77, 0x81, 0x02, 0x80]) == (try [UInt8](hex: atr)))
    }

    @Test func mifareMiniSAKNamesMini() throws {
        // libnfc wiki: "MIFARE Mini  00 04  09"; smartcard_list: "… 03 06 .. 00 26 00 00 00 00 ..  Mifare Mini (as per PCSC std part3)"
        let atr = ContactlessATR.iso14443A(sak: 0x09, atsAfterLength: [])
        #expect(ContactlessATR.Kind(atr: atr) == .storageCard(.init(standard: 0x03, cardName: 0x0026)))
    }

    @Test func atsWithItsCRCLeftOnIsRefusedWithBothLengths() {
        // Proxmark3: "ATS: 06 75 77 81 02 80 [ 02 F0 ]": TL counts 6, not the 2 CRC bytes.
        #expect(throws: ATSError.lengthMismatch(lengthByte: 6, count: 8)) {
            try ContactlessATR.historicalBytes(ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80, 0x02, 0xF0])
        }
    }

    @Test func atsOfTLAloneHasNoHistoricalBytes() throws {
        #expect(try ContactlessATR.historicalBytes(ats: [0x01]) == [])
        #expect(try ContactlessATR.historicalBytes(atsAfterLength: []) == [])
    }

    @Test func malformedATSIsRefusedWithWhatIsWrong() {
        #expect(throws: ATSError.empty) { try ContactlessATR.historicalBytes(ats: []) }
        // T0 78 announces TA1 TB1 TC1; only two follow (the HCE ATS cut short).
        #expect(throws: ATSError.missingInterfaceBytes(t0: 0x78, available: 2)) {
            try ContactlessATR.historicalBytes(atsAfterLength: [0x78, 0x80, 0x70])
        }
        #expect(throws: ATSError.tooLong(count: 255)) {
            try ContactlessATR.historicalBytes(atsAfterLength: [UInt8](repeating: 0x00, count: 255))
        }
        #expect(ATSError.lengthMismatch(lengthByte: 6, count: 8).description.contains("TL is 6"))
    }

    @Test func malformedATSOfAnISODepCardGivesAnATRWithoutHistoricalBytes() {
        #expect(ContactlessATR.iso14443A(sak: 0x20, atsAfterLength: [0x78, 0x80]) == [0x3B, 0x80, 0x80, 0x01, 0x01])
    }

    @Test func t0ReservedBitIsIgnored() throws {
        // T0 b8 is RFU: F8 reads as 78 (TA1 TB1 TC1 present).
        #expect(try ContactlessATR.historicalBytes(atsAfterLength: [0xF8, 0x77, 0xB1, 0x02, 0x4A]) == [0x4A])
    }
}
