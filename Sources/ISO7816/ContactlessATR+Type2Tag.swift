/// Telling an NFC Forum Type 2 tag (MIFARE Ultralight, Ultralight C and EV1, NTAG) from other
/// memory cards, MIFARE Classic above all, whose blocks cannot be read without its keys: PassTap
/// reads a Type 2 tag's pages for its NDEF message and leaves every other memory card alone.
extension ContactlessATR.StorageCard {
    /// The card names of the Ultralight family, which readers also give NTAG tags (an ACR122U
    /// names an NTAG215 "MIFARE Ultralight", 0003).
    public static let type2TagNames: Set<UInt16> = [mifareUltralight, mifareUltralightC, mifareUltralightEV1]

    /// Whether the card is a Type 2 tag whose pages a reader's READ BINARY (`FF B0`) reads: ISO
    /// 14443 A part 3 (SS 03) with an Ultralight-family card name. False for MIFARE Classic, Mini,
    /// Plus and every other name.
    public var isType2Tag: Bool {
        standard == ContactlessATR.iso14443AStandard && Self.type2TagNames.contains(cardName)
    }
}

extension ContactlessATR {
    /// ATQA (SENS_RES) `00 44`, as libnfc and `nfc-list` give it (most significant byte first):
    /// a double-size (7-byte) UID and no bit frame anticollision, which the Ultralight family and
    /// NTAG answer (NXP AN10833, "MIFARE type identification procedure").
    public static let type2TagATQA: [UInt8] = [0x00, 0x44]

    /// Whether a Type A card with this ATQA and SAK is a Type 2 tag (Ultralight family or NTAG):
    /// SAK 00 (no ISO-DEP, no MIFARE Classic: Classic answers 08, 09 or 18) and ATQA `00 44`.
    public static func isType2Tag(atqa: [UInt8], sak: UInt8) -> Bool {
        sak == 0x00 && atqa == type2TagATQA
    }
}
