/// The PEM formats a new merchant key can be written in.
public enum MerchantKeyFormat: String, CaseIterable, Hashable, Sendable {
    /// RFC 5915 `-----BEGIN EC PRIVATE KEY-----` (what proxmark3, VTAP and most readers load).
    case sec1 = "sec1"
    /// PKCS#8 `-----BEGIN PRIVATE KEY-----`.
    case pkcs8 = "pkcs8"
}
