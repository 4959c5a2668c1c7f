public import SmartTap

/// One Smart Tap service object as `smarttap.objects` publishes it: its kind and the ids and value
/// the phone sent (`{"type": "loyalty", "issuer_id": "...", "object_id": "...", "value": "..."}`).
public struct SmartTapPublishedObject: Sendable, Hashable, Codable {
    /// `loyalty`, `offer`, `gift_card`, `generic`...
    public var type: String
    /// The issuer id.
    @Nullable public var issuerID: String?
    /// The object id.
    @Nullable public var objectID: String?
    /// The object's value: a loyalty account or card number, an offer's code.
    @Nullable public var value: String?

    private enum CodingKeys: String, CodingKey { case type, issuerID = "issuer_id", objectID = "object_id", value }

    /// Creates an object.
    public init(type: String, issuerID: String?, objectID: String?, value: String?) {
        self.type = type
        self.issuerID = issuerID
        self.objectID = objectID
        self.value = value
    }

    /// A service object the reader decoded.
    public init(_ object: SmartTapServiceObject) {
        self.init(type: object.type.rawValue, issuerID: object.issuerID, objectID: object.objectID, value: object.value)
    }
}
