/// The 3-bit TNF field of an NDEF record header (NFC Forum NDEF 1.0, §3.2.6): how to read the
/// record's TYPE field.
public enum NDEFTypeNameFormat: UInt8, Sendable, Hashable, CaseIterable {
    /// No type, no ID, no payload (TNF 0).
    case empty = 0
    /// An NFC Forum well-known type, RTD (TNF 1): `U`, `T`, `Sp`...
    case wellKnown = 1
    /// A media type, RFC 2046 (TNF 2): `text/plain`, `application/vnd.bluetooth.ep.oob`...
    case media = 2
    /// An absolute URI, RFC 3986 (TNF 3).
    case absoluteURI = 3
    /// An NFC Forum external type (TNF 4): `domain:type`.
    case external = 4
    /// Unknown (TNF 5): no type.
    case unknown = 5
    /// Unchanged (TNF 6): a middle or last chunk of a chunked record.
    case unchanged = 6
}
