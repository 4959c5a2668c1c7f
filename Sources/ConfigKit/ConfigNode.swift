/// A parsed TOML value, copied out of TOMLKit into plain Swift so validation is pure.
package indirect enum ConfigNode: Sendable {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case float(Double)
    case array([ConfigNode])
    /// Keys in file order.
    case table([(key: String, value: ConfigNode)])
    /// Dates and times: never valid in our schema; the name is for the message.
    case other(typeName: String)

    /// The TOML type name, for "expected X, found Y" messages.
    package var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .boolean: return "a boolean"
        case .float: return "a float"
        case .array: return "an array"
        case .table: return "a table"
        case .other(let name): return "a \(name)"
        }
    }
}
