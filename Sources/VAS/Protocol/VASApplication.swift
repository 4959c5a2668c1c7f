public import ISO7816

/// The VAS applet's identity and the SELECT that opens it (vas-protocol.md §2.1).
///
/// ```
/// CLA INS P1 P2 Lc Data                            Le
/// 00  A4  04 00 0A 4F 53 45 2E 56 41 53 2E 30 31    00     ("OSE.VAS.01")
/// ```
/// Google Wallet (Smart Tap) and Samsung Wallet answer the same AID; the wallet label in the
/// answer (tag `50`) tells them apart.
public enum VASApplication {
    /// The AID's bytes: ASCII `OSE.VAS.01`.
    public static let aidBytes: [UInt8] = Array("OSE.VAS.01".utf8)

    /// The AID `4F53452E5641532E3031`.
    public static let aid: AID = {
        guard let aid = try? AID(bytes: aidBytes) else {
            preconditionFailure("OSE.VAS.01 is 10 bytes, inside the 5...16 bytes an AID may have")
        }
        return aid
    }()

    /// `00 A4 04 00 0A 4F53452E5641532E3031 00`.
    public static var selectCommand: CommandAPDU { .select(aid: aid) }

    /// VAS protocol version 1.0 (`01 00`), the only one known: sent in `9F22`, expected in `9F21`.
    public static let version: [UInt8] = [0x01, 0x00]
}
