/// A selected application's File Control Information as published: hex, and its TLV tree when
/// it parses, with card data removed (see ``FCIRecord/init(bytes:scope:)``).
public struct FCIRecord: Sendable, Hashable, Codable {
    /// The FCI bytes (status word excluded), upper-case hex: as the card sent them, or what is left
    /// after redaction when ``redacted`` is set.
    public var hex: String
    /// The FCI parsed as BER-TLV.
    @Nullable public var tlv: [TLVRecord]?
    /// The tags removed before publication (card data, or all but AID, label and priority of a
    /// payment application), hex; `nil` when the FCI is published as the card sent it.
    @Nullable public var redacted: [String]?

    /// Creates an FCI record.
    public init(hex: String, tlv: [TLVRecord]?, redacted: [String]? = nil) {
        self.hex = hex
        self.tlv = tlv
        self.redacted = redacted
    }
}

/// One BER-TLV data object in JSON form: `{"tag": "6F", "children": [...]}` when constructed,
/// `{"tag": "50", "value": "4170706C65506179"}` when primitive.
public struct TLVRecord: Sendable, Hashable, Codable {
    /// The tag, upper-case hex (`9F21`).
    public var tag: String
    /// The value, hex, for primitive objects; `nil` for constructed ones.
    public var value: String?
    /// The nested objects of a constructed tag; `nil` for primitive ones.
    public var children: [TLVRecord]?

    /// Creates a record.
    public init(tag: String, value: String?, children: [TLVRecord]?) {
        self.tag = tag
        self.value = value
        self.children = children
    }
}
