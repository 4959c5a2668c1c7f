/// An optional member that is always on the wire: `null` when absent, never left out.
///
/// Every optional member of PassTap's messages is written, so clients see one shape per message
/// (`docs/socket-api.md`). Swift's synthesized `Codable` leaves a `nil` out; wrapping the property
/// (`@Nullable public var uid: String?`) makes the synthesized encoder write `null` instead, and
/// the decoder takes a missing member or `null` as `nil`. This replaces a hand-written
/// `encode(to:)` per type whose only purpose was to write nulls.
@propertyWrapper
public struct Nullable<Value> {
    /// The value, `nil` when absent.
    public var wrappedValue: Value?

    /// Wraps a value.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension Nullable: Sendable where Value: Sendable {}
extension Nullable: Equatable where Value: Equatable {}
extension Nullable: Hashable where Value: Hashable {}

extension Nullable: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}

extension Nullable: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// A ``Nullable`` member that is missing decodes as `nil` (the synthesized decoder asks for
    /// every stored property by this method).
    public func decode<Value: Decodable>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
    }
}
