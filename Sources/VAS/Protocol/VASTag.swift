public import ISO7816

/// The BER-TLV tags of the VAS applet (vas-protocol.md §2.2, §3.2, §4.1).
///
/// | Tag | Where | Meaning |
/// |---|---|---|
/// | `6F` | SELECT answer | FCI template |
/// | `50` | SELECT answer | wallet label (`ApplePay`, `AndroidPay`, ...) |
/// | `9F21` | SELECT answer | VAS application version |
/// | `9F23` | SELECT answer | mobile capabilities |
/// | `9F24` | SELECT answer | mobile nonce (not bound into the cryptography) |
/// | `9F22` | GET VAS DATA | terminal VAS version |
/// | `9F25` | GET VAS DATA | SHA-256 of the pass type identifier ("merchant ID") |
/// | `9F26` | GET VAS DATA | terminal capabilities |
/// | `9F28` | GET VAS DATA | terminal nonce |
/// | `9F29` | GET VAS DATA | merchant sign-up URL |
/// | `9F2B` | GET VAS DATA | VAS filter |
/// | `70` | GET VAS DATA answer | proprietary template |
/// | `9F2A` | GET VAS DATA answer | mobile token |
/// | `9F27` | GET VAS DATA answer | cryptogram |
public enum VASTag {
    /// `6F`: FCI template.
    public static let fci: TLVTag = 0x6F
    /// `50`: wallet label.
    public static let walletLabel: TLVTag = 0x50
    /// `9F21`: VAS application version.
    public static let applicationVersion: TLVTag = 0x9F21
    /// `9F23`: mobile capabilities.
    public static let mobileCapabilities: TLVTag = 0x9F23
    /// `9F24`: mobile nonce.
    public static let mobileNonce: TLVTag = 0x9F24
    /// `9F22`: terminal VAS version.
    public static let terminalVersion: TLVTag = 0x9F22
    /// `9F25`: SHA-256 of the pass type identifier.
    public static let merchantID: TLVTag = 0x9F25
    /// `9F26`: terminal capabilities.
    public static let terminalCapabilities: TLVTag = 0x9F26
    /// `9F28`: terminal nonce.
    public static let terminalNonce: TLVTag = 0x9F28
    /// `9F29`: merchant sign-up URL.
    public static let url: TLVTag = 0x9F29
    /// `9F2B`: VAS filter.
    public static let filter: TLVTag = 0x9F2B
    /// `70`: proprietary template around the GET VAS DATA answer.
    public static let dataTemplate: TLVTag = 0x70
    /// `9F2A`: mobile token.
    public static let mobileToken: TLVTag = 0x9F2A
    /// `9F27`: cryptogram.
    public static let cryptogram: TLVTag = 0x9F27
}
