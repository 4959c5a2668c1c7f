/// A JSON-RPC 2.0 request id, echoed in the response.
///
/// JSON-RPC 2.0, section 4: "An identifier established by the Client that MUST contain a String,
/// Number, or NULL value if included. [...] Numbers SHOULD NOT contain fractional parts." A request
/// without an `id` member is a notification and gets no response; that absence is modelled as an
/// `Optional<JSONRPCID>` being `nil`, not as ``null``.
public enum JSONRPCID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A string id.
    case string(String)
    /// An integer id (the usual kind).
    case number(Int64)
    /// An integer id above `Int64.max` (a client counting in `UInt64`), echoed exactly.
    case unsigned(UInt64)
    /// A number id with a fractional part (allowed, discouraged), or an integer beyond `UInt64`:
    /// echoed as the nearest `Double`.
    case fractional(Double)
    /// An explicit `null` id; also the id of an error answer when the request's id is unknown.
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(integer)
        } else if let integer = try? container.decode(UInt64.self) {
            self = .unsigned(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .fractional(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a JSON-RPC id must be a string, a number or null")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        case .fractional(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    public var description: String {
        switch self {
        case .string(let value): return "\"\(value)\""
        case .number(let value): return String(value)
        case .unsigned(let value): return String(value)
        case .fractional(let value): return String(value)
        case .null: return "null"
        }
    }
}
