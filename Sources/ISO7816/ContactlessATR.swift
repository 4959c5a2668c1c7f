/// The ATR a PC/SC reader reports for a contactless card, built and read as PC/SC part 3 has it
/// (Interoperability Specification for ICCs and Personal Computer Systems, part 3, §3.1.3.2.3;
/// Identiv's CLOUD 47x0 F reference manual §5.3.3 repeats both layouts).
///
/// A contactless card has no ATR; the reader makes one from what the card said on activation:
///
/// ```
/// ISO 14443-4 card (ISO-DEP, speaks APDUs), from the ATS historical bytes (Type A):
///   3B  8n  80  01  T1 … Tn  TCK
///   TS  T0  TD1 TD2 historical bytes (n = 0…15)   TCK = XOR of T0 … Tn
///
/// Storage card (MIFARE Classic, Ultralight, …: no APDUs, only the reader's FF pseudo-APDUs):
///   3B  8F  80  01  80  4F  0C  A0 00 00 03 06  SS  NN NN  00 00 00 00  TCK
///                   cat tag len RID (PC/SC WG)  std card   RFU
/// ```
///
/// TD1 = 80 (TD2 follows, T=0 named), TD2 = 01 (T=1, nothing follows). `SS` is the standard
/// (03: ISO 14443 A part 3) and `NN NN` the card name, both from PC/SC part 3's supplemental
/// document (``ContactlessATR/StorageCard``).
/// A backend without a real ATR (libnfc) builds one with these functions; the PC/SC backend reads
/// one with ``ContactlessATR/Kind/init(atr:)``.
public enum ContactlessATR {
    /// TS: direct convention.
    public static let initialCharacter: UInt8 = 0x3B
    /// TD1 = 80 (TD2 follows; T=0), TD2 = 01 (T=1, no more interface bytes).
    public static let interfaceBytes: [UInt8] = [0x80, 0x01]
    /// T0's low nibble counts the historical bytes: an ATR has room for 15.
    public static let maximumHistoricalBytes = 15
    /// The RID PC/SC part 3 registered for storage cards (PC/SC Workgroup), in the AID tag `4F`.
    public static let pcscRID: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]
    /// The 8 bytes a storage card's historical bytes start with: category indicator `80`, then
    /// compact-TLV `4F` (AID) of length `0C`, then the PC/SC RID.
    static let storageCardPrefix: [UInt8] = [0x80, 0x4F, 0x0C] + pcscRID
    /// Standard byte `SS` for ISO/IEC 14443 A part 3, the MIFARE family's.
    public static let iso14443AStandard: UInt8 = 0x03

    /// The ATR of an ISO 14443-4 (ISO-DEP) card: `3B 8n 80 01`, the historical bytes, TCK.
    ///
    /// Only 15 historical bytes fit in an ATR (n is T0's low nibble); longer lists are cut to their
    /// first 15 rather than refused, so a card with an unusually long ATS still gets an ATR.
    public static func isoDep(historicalBytes: [UInt8]) -> [UInt8] {
        let historical = historicalBytes.prefix(maximumHistoricalBytes)
        var atr: [UInt8] = [initialCharacter, 0x80 | UInt8(historical.count)] + interfaceBytes
        atr += historical
        atr.append(checkCharacter(atr))
        return atr
    }

    /// The ATR of a storage card: `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK`.
    public static func storageCard(standard: UInt8, cardName: UInt16) -> [UInt8] {
        var atr: [UInt8] = [initialCharacter, 0x8F] + interfaceBytes + storageCardPrefix
        atr += [standard, UInt8(cardName >> 8), UInt8(cardName & 0xFF), 0x00, 0x00, 0x00, 0x00]
        atr.append(checkCharacter(atr))
        return atr
    }

    /// TCK for an ATR whose bytes before TCK are `atr`: the XOR of T0 to the last byte (TS is
    /// left out, ISO/IEC 7816-3 §8.2.5).
    static func checkCharacter(_ atr: [UInt8]) -> UInt8 {
        atr.dropFirst().reduce(0, ^)
    }
}
