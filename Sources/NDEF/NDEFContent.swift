/// What a record means, as ``NDEFRecord/decoded(limits:)`` reads it from its TNF and type.
///
/// | TNF | type | content |
/// |---|---|---|
/// | 0 empty | | ``empty`` |
/// | 1 well-known | `U` (RTD-URI 1.0) | ``uri(_:)``, the abbreviation expanded |
/// | 1 well-known | `T` (RTD-Text 1.0) | ``text(_:)`` |
/// | 1 well-known | `Sp` (RTD-SP 1.0) | ``smartPoster(_:)`` |
/// | 1 well-known | any other | ``other(type:payload:)`` |
/// | 2 media | RFC 2046 media type | ``media(type:payload:)`` |
/// | 3 absolute URI | the URI | ``absoluteURI(_:)`` |
/// | 4 external | `domain:type` | ``external(type:payload:)`` |
/// | 5 unknown | | ``unknown(payload:)`` |
///
/// A record that claims one of these and breaks its rules (a reserved URI code, a Text language
/// length past the payload, bytes that are not UTF-8...) is ``malformed(_:)`` with the reason.
public enum NDEFContent: Sendable, Hashable {
    /// A URI record, its identifier code expanded (`03` + `example.com` is `http://example.com`).
    case uri(String)
    /// A Text record.
    case text(NDEFText)
    /// A Smart Poster.
    case smartPoster(NDEFSmartPoster)
    /// A media-type record: the type (as written, ASCII) and the payload untouched.
    case media(type: String, payload: [UInt8])
    /// An NFC Forum external type record: the type (`domain:type`, ASCII) and the payload untouched.
    case external(type: String, payload: [UInt8])
    /// An absolute-URI record: the URI in its type field.
    case absoluteURI(String)
    /// An empty record.
    case empty
    /// A record of unknown type (TNF 5).
    case unknown(payload: [UInt8])
    /// A well-known type this codec does not decode (or TNF 6 seen outside a parse), kept as is.
    case other(type: [UInt8], payload: [UInt8])
    /// The record claims a type it does not follow; the reason says how.
    case malformed(String)
}
