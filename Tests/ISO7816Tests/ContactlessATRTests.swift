import ISO7816
import Testing

// Vectors we did not make. ATRs: pcsc-tools 1.6.2's smartcard_list.txt (Ludovic Rousseau,
// /usr/share/pcsc/smartcard_list.txt, github.com/LudovicRousseau/pcsc-tools), quoted with its
// description. ATSs: the libnfc wiki's ISO 14443 tag table
// (www.libnfc.org/documentation/hardware/tags/iso14443, ATS printed without TL as nfc-list does),
// and a Proxmark3 `hf search` of a DESFire (ATS with TL, CRC in brackets).
@Suite struct ContactlessATRTests {
    /// (historical bytes, ATR a reader built from them), all from smartcard_list.txt.
    static let isoDepATRs: [(String, String)] = [
        // "3B 81 80 01 80 80  RFID - ISO 14443 Type A - NXP DESFire or DESFire EV1 or EV2"
        ("80", "3B 81 80 01 80 80"),
        // "3B 86 80 01 4B 4F 4E 41 14 11 09  Mastercard paypass enabled credit card"
        ("4B 4F 4E 41 14 11", "3B 86 80 01 4B 4F 4E 41 14 11 09"),
        // "3B 8A 80 01 4A 43 4F 50 33 31 56 32 33 32 7A  Snapper New Zealand (JCOP)"
        ("4A 43 4F 50 33 31 56 32 33 32", "3B 8A 80 01 4A 43 4F 50 33 31 56 32 33 32 7A"),
        // "3B 80 80 01 01  ISO 14443 Type B without historical bytes"
        ("", "3B 80 80 01 01"),
        // "3B 86 80 01 06 75 77 81 02 80 00  NXP Mifare DESFire EV1 8K / MF3ICD81": a reader that
        // put the whole ATS (TL included) in the historical bytes.
        ("06 75 77 81 02 80", "3B 86 80 01 06 75 77 81 02 80 00"),
    ]

    @Test(arguments: isoDepATRs)
    func isoDepATRIsBuiltFromHistoricalBytesWithTheirTCK(_ historical: String, _ atr: String) throws {
        #expect(ContactlessATR.isoDep(historicalBytes: try [UInt8](hex: historical)).hexString == (try [UInt8](hex: atr)).hexString)
    }

    /// (SS, NN NN, ATR), from smartcard_list.txt.
    static let storageATRs: [(UInt8, UInt16, String)] = [
        // "NXP/Philips MIFARE Classic 1K (as per PCSC std part3)"
        (0x03, 0x0001, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"),
        // "RFID - ISO 14443 Type A - NXP Mifare card with 4k EEPROM"
        (0x03, 0x0002, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69"),
        // "RFID - ISO 14443 Type A - NXP Mifare Ultralight or UltralightC"
        (0x03, 0x0003, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68"),
        // "buss/train pass for use with Skånetrafiken … specialized Mifare Ultralight card"
        (0x03, 0x0000, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 00 00 00 00 00 6B"),
        // "RFID - ISO 15693 - Texas Instrument"
        (0x0B, 0x0012, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 12 00 00 00 00 71"),
        // "ACTV (Italy) prepaid transport ticket"
        (0x03, 0x00FF, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 FF 00 00 00 00 94"),
    ]

    @Test(arguments: storageATRs)
    func storageCardATRCarriesStandardAndCardName(_ standard: UInt8, _ cardName: UInt16, _ atr: String) throws {
        let expected = try [UInt8](hex: atr)
        #expect(ContactlessATR.storageCard(standard: standard, cardName: cardName) == expected)
        #expect(ContactlessATR.StorageCard(standard: standard, cardName: cardName).atr == expected)
    }

    @Test func historicalBytesPastFifteenAreCutToFifteen() {
        let historical = (1...20).map { UInt8($0) }
        let atr = ContactlessATR.isoDep(historicalBytes: historical)
        #expect(atr.count == 4 + 15 + 1)
        #expect(atr[1] == 0x8F)
        #expect(Array(atr[4..<19]) == Array(historical.prefix(15)))
        #expect(ContactlessATR.Kind(atr: atr) == .isoDep(historicalBytes: Array(historical.prefix(15))))
    }

    @Test(arguments: 0...15)
    func everyHistoricalByteCountRoundTrips(_ count: Int) {
        // 0x11, 0x22…: never the storage-card prefix.
        let historical = (0..<count).map { UInt8(truncatingIfNeeded: 0x11 &* ($0 + 1)) }
        let atr = ContactlessATR.isoDep(historicalBytes: historical)
        #expect(atr.count == count + 5)
        #expect(atr.dropFirst().reduce(0, ^) == 0, "TCK makes the XOR of T0 to TCK zero")
        #expect(ContactlessATR.Kind(atr: atr) == .isoDep(historicalBytes: historical))
    }
}
