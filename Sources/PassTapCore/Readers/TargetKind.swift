/// Whether a tapped card speaks ISO-DEP (ISO/IEC 14443-4), and so gets the APDU session.
public enum TargetKind: String, Sendable, Hashable, Codable {
    /// An ISO-DEP card or phone: SELECT by AID and Apple VAS run over APDUs.
    case isoDep = "iso_dep"
    /// A card without ISO-DEP (MIFARE Classic/Ultralight, NTAG: SAK bit 6 clear, no ATS): its
    /// identity is published, and no APDU session runs.
    case memory
}
