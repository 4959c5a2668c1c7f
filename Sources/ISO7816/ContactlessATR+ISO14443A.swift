/// The ATS (answer to select) of an ISO 14443-4 Type A card, ISO/IEC 14443-4 §5.2, CRC left out:
///
/// ```
/// TL  T0  [TA1] [TB1] [TC1]  T1 … Tk
/// TL: length of the ATS, TL included (not the CRC)
/// T0: b8 0 (RFU), b7 TC1 present, b6 TB1 present, b5 TA1 present, b4-b1 FSCI
/// T1 … Tk: historical bytes (what the ATR carries)
/// ```
///
/// libnfc keeps the ATS without TL (`nfc_iso14443a_info.abtAts`, from T0 on, `szAtsLen` = TL - 1;
/// `pn53x.c`, "ATS Length byte is counted in ATS Frame"), as `nfc-list` prints it; readers' and
/// Proxmark traces show it with TL. Both forms have their own function.
extension ContactlessATR {
    /// SAK bit 6: the card is ISO/IEC 14443-4 compliant, it speaks ISO-DEP (ISO/IEC 14443-3's SAK
    /// coding; libnfc's `SAK_ISO14443_4_COMPLIANT` in `nfc-utils.c`).
    public static let sakISO14443_4Compliant: UInt8 = 0x20
    /// The longest ATS TL can describe.
    public static let maximumATSLength = 255

    /// Whether a Type A card with this SAK speaks ISO 14443-4 (ISO-DEP): SAK bit 6 (`0x20`) is set.
    public static func isISO14443_4(sak: UInt8) -> Bool {
        sak & sakISO14443_4Compliant != 0
    }

    /// The historical bytes of a whole ATS, TL first. A malformed ATS throws: the error says what
    /// is wrong, and a caller that must still publish an ATR can use no historical bytes.
    public static func historicalBytes(ats: [UInt8]) throws(ATSError) -> [UInt8] {
        guard let length = ats.first else { throw .empty }
        guard Int(length) == ats.count else { throw .lengthMismatch(lengthByte: length, count: ats.count) }
        return try historicalBytes(atsAfterLength: Array(ats.dropFirst()))
    }

    /// The historical bytes of an ATS without its TL, as libnfc keeps it (T0 first). Empty bytes
    /// (libnfc's `szAtsLen` 0: an ATS of TL alone) have none.
    public static func historicalBytes(atsAfterLength ats: [UInt8]) throws(ATSError) -> [UInt8] {
        guard ats.count < maximumATSLength else { throw .tooLong(count: ats.count) }
        guard let t0 = ats.first else { return [] }
        // TA1, TB1, TC1 present: T0 bits b5, b6, b7. b8 is RFU; it is ignored, not refused.
        let interfaceBytes = (t0 >> 4 & 1) + (t0 >> 5 & 1) + (t0 >> 6 & 1)
        let historicalStart = 1 + Int(interfaceBytes)
        guard ats.count >= historicalStart else {
            throw .missingInterfaceBytes(t0: t0, available: ats.count - 1)
        }
        return Array(ats[historicalStart...])
    }

    /// The PC/SC part 3 ATR a reader builds for a Type A card from its activation data, for a
    /// backend that has no ATR (libnfc): SAK bit 6 set, an ISO-DEP ATR from the ATS's historical
    /// bytes (none when the ATS is missing or malformed); otherwise a storage-card ATR named from
    /// the SAK (``storageCardName(sak:)``).
    public static func iso14443A(sak: UInt8, atsAfterLength ats: [UInt8]) -> [UInt8] {
        guard isISO14443_4(sak: sak) else {
            return storageCard(standard: iso14443AStandard, cardName: storageCardName(sak: sak))
        }
        let historical = (try? historicalBytes(atsAfterLength: ats)) ?? []
        return isoDep(historicalBytes: historical)
    }

    /// The part 3 card name for a Type A storage card's SAK, as far as SAK alone tells (NXP
    /// AN10833's identification also reads ATQA and more): 09 MIFARE Mini, 08 Classic 1K,
    /// 18 Classic 4K, 00 Ultralight (or Ultralight C or EV1); 0000 "not given" for any other.
    public static func storageCardName(sak: UInt8) -> UInt16 {
        switch sak {
        case 0x09: return StorageCard.mifareMini
        case 0x08: return StorageCard.mifareClassic1K
        case 0x18: return StorageCard.mifareClassic4K
        case 0x00: return StorageCard.mifareUltralight
        default: return 0x0000
        }
    }
}
