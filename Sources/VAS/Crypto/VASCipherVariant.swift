/// The two known ways a VAS cryptogram binds the pass type identifier (vas-protocol.md §5.3).
///
/// | Variant | KDF SharedInfo | GCM AAD |
/// |---|---|---|
/// | A | `0D` ‖ `"id-aes256-GCM"` ‖ `"ApplePay encrypted VAS data"` ‖ SHA-256(pass id) (73 bytes) | empty |
/// | B | `"ApplePay encrypted VAS data"` (27 bytes) | SHA-256(pass id) |
///
/// Every published capture uses A; B exists as a fallback in proxmark3 and a Rust client. Try A,
/// then B: the GCM tag check makes the fallback safe.
public enum VASCipherVariant: String, CaseIterable, Hashable, Sendable {
    /// SharedInfo with the algorithm id and pass hash; no AAD.
    case a = "A"
    /// SharedInfo is the label only; the pass hash is the AAD.
    case b = "B"

    /// `"id-aes256-GCM"` (13 bytes; `0D` is its length).
    static let algorithmID: [UInt8] = Array("id-aes256-GCM".utf8)
    /// `"ApplePay encrypted VAS data"` (27 bytes).
    static let label: [UInt8] = Array("ApplePay encrypted VAS data".utf8)

    /// The KDF SharedInfo for a pass whose SHA-256 is `passHash`.
    public func sharedInfo(passHash: [UInt8]) -> [UInt8] {
        switch self {
        case .a: return [UInt8(Self.algorithmID.count)] + Self.algorithmID + Self.label + passHash
        case .b: return Self.label
        }
    }

    /// The GCM additional authenticated data for a pass whose SHA-256 is `passHash`.
    public func authenticatedData(passHash: [UInt8]) -> [UInt8] {
        switch self {
        case .a: return []
        case .b: return passHash
        }
    }
}
