/// Encodes BER-TLV with minimal lengths (short form below 128, else `81`–`84`).
public enum BERTLVWriter {
    /// One object: tag, length, value.
    public static func encode(tag: TLVTag, value: [UInt8]) -> [UInt8] {
        tag.bytes + encodeLength(value.count) + value
    }

    /// A node; constructed nodes are encoded from their children.
    public static func encode(_ node: TLVNode) -> [UInt8] {
        if let children = node.children {
            return encode(tag: node.tag, value: children.flatMap { encode($0) })
        }
        return encode(tag: node.tag, value: node.value)
    }

    /// The length field for `count` value bytes.
    public static func encodeLength(_ count: Int) -> [UInt8] {
        switch count {
        case ..<0x80: return [UInt8(count)]
        case ..<0x100: return [0x81, UInt8(count)]
        case ..<0x1_0000: return [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        case ..<0x100_0000: return [0x83, UInt8(count >> 16), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        default:
            return [0x84, UInt8(truncatingIfNeeded: count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        }
    }
}
