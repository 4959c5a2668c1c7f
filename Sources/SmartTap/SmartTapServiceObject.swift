/// One pass the phone sent (a service value, `asv`, in the decrypted record bundle): its kind,
/// issuer, object id and the redemption value, the pass's data for the terminal.
public struct SmartTapServiceObject: Sendable, Hashable {
    /// The kind of pass, from the object record's type.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `ly`
        case loyalty
        /// `of`
        case offer
        /// `gc`
        case giftCard = "gift_card"
        /// `gr`
        case generic
        /// `et`
        case eventTicket = "event_ticket"
        /// `fl`
        case flight
        /// `tr`
        case transit
        /// `pl`
        case privateLabelCard = "private_label_card"

        /// The kind whose object record has this type, or `nil`.
        init?(recordType: String) {
            switch recordType {
            case "ly": self = .loyalty
            case "of": self = .offer
            case "gc": self = .giftCard
            case "gr": self = .generic
            case "et": self = .eventTicket
            case "fl": self = .flight
            case "tr": self = .transit
            case "pl": self = .privateLabelCard
            default: return nil
            }
        }
    }

    /// The kind of pass.
    public var type: Kind
    /// The issuer id (`i`), decimal when binary and at most 8 bytes, else hex.
    public var issuerID: String?
    /// The object id (`oid`): hex when binary, the bytes as the phone sent them
    /// (`00000000000000A1`); text formats as text.
    public var objectID: String?
    /// The Smart Tap redemption value (`n`): text when it is printable, else hex.
    public var value: String?

    /// An object with these fields.
    public init(type: Kind, issuerID: String? = nil, objectID: String? = nil, value: String? = nil) {
        self.type = type
        self.issuerID = issuerID
        self.objectID = objectID
        self.value = value
    }
}
