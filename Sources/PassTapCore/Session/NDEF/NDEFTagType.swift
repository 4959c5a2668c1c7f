/// The NFC Forum tag platform an NDEF message was read from: `read.result`'s `ndef.tag_type`.
public enum NDEFTagType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Type 2 (MIFARE Ultralight, NTAG): the capability container in page 3, TLVs from page 4,
    /// read page by page over ``TagMemory``.
    case type2
    /// Type 4 (ISO-DEP): the NDEF application `D2760000850101`, its CC file `E103` and NDEF file,
    /// read with SELECT and READ BINARY.
    case type4
}
