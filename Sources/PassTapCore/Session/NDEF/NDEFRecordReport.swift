import ISO7816
public import NDEF

/// One record of a tag's NDEF message as `read.result`'s `ndef.records` publishes it: the record
/// as it is (TNF, type, id, payload) and, for the types the codec knows, what it says.
///
/// ```json
/// {"tnf": "well_known", "type": "U", "id": "", "payload_length": 12, "payload_hex": "04...",
///  "content": "uri", "uri": "https://example.com", "text": null, "language": null,
///  "encoding": null, "titles": null, "action": null, "problem": null}
/// ```
/// Every member is always present (`null` when it does not apply). `type` and `id` are printable
/// ASCII, other bytes written `\xNN` (``CardText/printable(_:maxBytes:)``), cut at 255 bytes.
public struct NDEFRecordReport: Sendable, Hashable, Codable {
    /// A Text record, or a Smart Poster's title.
    public struct Text: Sendable, Hashable, Codable {
        /// The IANA language code (`en`, `de-CH`).
        public var language: String
        /// The text.
        public var text: String

        /// A text in `language`.
        public init(language: String, text: String) {
            self.language = language
            self.text = text
        }
    }

    /// The TNF: `empty`, `well_known`, `media`, `absolute_uri`, `external`, `unknown`, `unchanged`.
    public var tnf: String
    /// The record type, printable (`U`, `T`, `Sp`, `text/plain`, `example.com:x`).
    public var type: String
    /// The record id, printable; empty when the record has none.
    public var id: String
    /// The payload's length in bytes.
    public var payloadLength: Int
    /// The payload, upper-case hex; `null` when left out to keep the event under its cap.
    @Nullable public var payloadHex: String?
    /// What the codec read the record as: `uri`, `text`, `smart_poster`, `media`, `external`,
    /// `absolute_uri`, `empty`, `unknown`, `other`, or `malformed` (then `problem` says why);
    /// `null` when left out to keep the event under its cap.
    @Nullable public var content: String?
    /// The URI of a URI record (prefix expanded), of a Smart Poster, or an absolute-URI record's type.
    @Nullable public var uri: String?
    /// A Text record's text.
    @Nullable public var text: String?
    /// A Text record's language.
    @Nullable public var language: String?
    /// A Text record's encoding: `utf8` or `utf16`.
    @Nullable public var encoding: String?
    /// A Smart Poster's titles.
    @Nullable public var titles: [Text]?
    /// A Smart Poster's action (RTD Smart Poster: 0 do, 1 save, 2 open for editing).
    @Nullable public var action: Int?
    /// Why the record's payload does not follow its type (`content` is `malformed`).
    @Nullable public var problem: String?

    private enum CodingKeys: String, CodingKey {
        case tnf, type, id, payloadLength = "payload_length", payloadHex = "payload_hex", content, uri, text, language
        case encoding, titles, action, problem
    }

    /// The most bytes of a type or an id published (both have a 1-byte length on the tag).
    public static let maximumLabelBytes = 255

    /// The report of `record`, decoded with `limits`.
    public init(_ record: NDEFRecord, limits: NDEFLimits) {
        uri = nil
        text = nil
        language = nil
        encoding = nil
        titles = nil
        action = nil
        problem = nil
        tnf = Self.name(of: record.tnf)
        type = CardText.printable(record.type, maxBytes: Self.maximumLabelBytes)
        id = CardText.printable(record.id, maxBytes: Self.maximumLabelBytes)
        payloadLength = record.payload.count
        payloadHex = record.payload.hexString
        switch record.decoded(limits: limits) {
        case .uri(let value):
            content = "uri"
            uri = value
        case .text(let value):
            content = "text"
            text = value.text
            language = value.language
            encoding = value.encoding == .utf8 ? "utf8" : "utf16"
        case .smartPoster(let poster):
            content = "smart_poster"
            uri = poster.uri
            titles = poster.titles.map { Text(language: $0.language, text: $0.text) }
            action = poster.action.map(Int.init)
        case .media: content = "media"
        case .external: content = "external"
        case .absoluteURI(let value):
            content = "absolute_uri"
            uri = value
        case .empty: content = "empty"
        case .unknown: content = "unknown"
        case .other: content = "other"
        case .malformed(let reason):
            content = "malformed"
            problem = reason
        }
    }

    /// This record with its payload and what was decoded from it left out (`payload_hex`,
    /// `content` and the decoded members `null`): what is published of a record too large for
    /// the event's cap.
    public var bare: NDEFRecordReport {
        var bare = self
        bare.payloadHex = nil
        bare.content = nil
        bare.uri = nil
        bare.text = nil
        bare.language = nil
        bare.encoding = nil
        bare.titles = nil
        bare.action = nil
        bare.problem = nil
        return bare
    }

    /// The TNF's wire name.
    static func name(of tnf: NDEFTypeNameFormat) -> String {
        switch tnf {
        case .empty: "empty"
        case .wellKnown: "well_known"
        case .media: "media"
        case .absoluteURI: "absolute_uri"
        case .external: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        }
    }
}
