import Foundation

/// How many bytes of compact JSON a value takes, counted through its `Encodable` conformance
/// without writing them: Core needs a size bound where a tag chooses the content (the NDEF
/// member's cap, ``NDEFReadResult/maximumEncodedBytes``), but the JSON itself is written only by
/// PassTapProtocol's encoder, once per event (`EncodedEvent`).
///
/// The count is the length of Foundation's `JSONEncoder` output with its default settings:
/// compact, and `/` escaped as `\/`, so it is never less than the wire's (whose encoder leaves
/// slashes as they are and escapes nothing more). Strings count as the encoder escapes them:
/// `"` `\` `/` and `\b` `\f` `\n` `\r` `\t` two bytes each, other bytes below 0x20 six
/// (`\u00XX`), everything else its UTF-8 bytes. `JSONByteCountTests` holds the count equal to
/// the encoder's over the NDEF results' cases.
///
/// It counts objects, arrays, strings, integers, booleans and `null`. Floating-point numbers,
/// `Date`, `Data`, `URL` and `Decimal`, which `JSONEncoder` writes its own way, are not counted:
/// they throw `EncodingError.invalidValue` (no event member a size bound applies to holds one).
public enum JSONByteCount {
    /// The bytes `value` takes as compact JSON.
    public static func of(_ value: some Encodable) throws -> Int {
        let root = Node()
        try root.encode(value, codingPath: [])
        return root.byteCount
    }

    /// The bytes `text` takes as a JSON string, quotes included.
    public static func string(_ text: String) -> Int {
        var count = 2
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), 0x08, 0x0C, 0x0A, 0x0D, 0x09: count += 2
            case 0x00..<0x20: count += 6
            default: count += 1
            }
        }
        return count
    }
}

/// One value being counted: a scalar's length, or an object's or array's members, filled in as
/// the value encodes itself (containers are handed out before their members are encoded).
private final class Node {
    /// A scalar's bytes; `nil` for an object or an array.
    var scalar: Int?
    /// An object's members by key, when the value asked for a keyed container.
    var members: [String: Node]?
    /// An array's elements, when the value asked for an unkeyed container.
    var elements: [Node]?

    /// The value's bytes: a scalar's own; `{...}` or `[...]` with commas between members, each
    /// member its quoted key, a colon and its value. A value that encoded nothing is `{}`, as
    /// `JSONEncoder` writes it.
    var byteCount: Int {
        if let scalar { return scalar }
        if let elements { return 2 + max(0, elements.count - 1) + elements.reduce(0) { $0 + $1.byteCount } }
        let members = members ?? [:]
        return 2 + max(0, members.count - 1) + members.reduce(0) { $0 + JSONByteCount.string($1.key) + 1 + $1.value.byteCount }
    }

    /// Counts `value` into this node.
    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let bytes = try Self.scalarByteCount(of: value, codingPath: codingPath) {
            scalar = bytes
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    /// The bytes of a value the encoder writes as a scalar; `nil` for any other value (it encodes
    /// itself through containers). Throws for the values that are not counted.
    static func scalarByteCount(of value: some Encodable, codingPath: [any CodingKey]) throws -> Int? {
        switch value {
        case let text as String: return JSONByteCount.string(text)
        case let flag as Bool: return flag ? 4 : 5
        case let number as any BinaryInteger: return String(describing: number).utf8.count
        case is Float, is Double, is Date, is Data, is URL, is Decimal:
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: codingPath, debugDescription: "JSONByteCount does not count \(type(of: value))"))
        default: return nil
        }
    }

    /// The node under `key`, made an object or an array member as the value asks.
    func member(_ key: any CodingKey) -> Node {
        let node = Node()
        if members == nil { members = [:] }
        members?[key.stringValue] = node
        return node
    }

    /// A new element at the end of this array.
    func appendElement() -> Node {
        let node = Node()
        if elements == nil { elements = [] }
        elements?.append(node)
        return node
    }
}

/// The `Encoder` a value counted by ``JSONByteCount`` encodes itself to.
private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.members == nil { node.members = [:] }
        return KeyedEncodingContainer(KeyedNodes<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.elements == nil { node.elements = [] }
        return UnkeyedNodes(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNode(node: node, codingPath: codingPath)
    }
}

/// An object's members, counted.
private struct KeyedNodes<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key).scalar = 4 }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.member(key).encode(value, codingPath: codingPath + [key])
    }

    // The scalars, each counted as any value is.
    mutating func encode(_ value: Bool, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: String, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try node.member(key).encode(value, codingPath: codingPath + [key]) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = SuperKey()
        return NodeEncoder(node: node.member(key), codingPath: codingPath + [key])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key), codingPath: codingPath + [key])
    }
}

/// An array's elements, counted.
private struct UnkeyedNodes: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.elements?.count ?? 0 }

    mutating func encodeNil() throws { node.appendElement().scalar = 4 }

    mutating func encode(_ value: some Encodable) throws {
        try node.appendElement().encode(value, codingPath: codingPath)
    }

    // The scalars, each counted as any value is.
    mutating func encode(_ value: Bool) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try node.appendElement().encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try node.appendElement().encode(value, codingPath: codingPath) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.appendElement(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.appendElement(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.appendElement(), codingPath: codingPath)
    }
}

/// A single value, counted.
private struct SingleNode: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.scalar = 4 }

    mutating func encode(_ value: some Encodable) throws {
        try node.encode(value, codingPath: codingPath)
    }

    // The scalars, each counted as any value is.
    mutating func encode(_ value: Bool) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try node.encode(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try node.encode(value, codingPath: codingPath) }
}

/// The key `JSONEncoder` gives a keyed container's `superEncoder()`.
private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
