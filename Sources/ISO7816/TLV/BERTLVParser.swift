/// Bounds on what ``BERTLVParser`` accepts, so hostile input costs little.
public struct TLVLimits: Hashable, Sendable {
    /// Deepest nesting of constructed objects (a VAS answer needs 2; an EMV FCI 4).
    public var maxDepth: Int
    /// Most objects in one parse.
    public var maxNodes: Int

    /// Creates limits.
    public init(maxDepth: Int = 16, maxNodes: Int = 4096) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    /// 16 levels, 4096 objects.
    public static let `default` = TLVLimits()
}

/// Parses BER-TLV as ISO/IEC 7816-4 §5.2 and EMV Book 3 Annex B use it.
///
/// Tags of 1–4 bytes; lengths in short form (`00`–`7F`) or long form (`81`–`84` then 1–4 bytes);
/// the indefinite form `80` is rejected. Constructed values are parsed recursively up to
/// ``TLVLimits/maxDepth``. As EMV allows, `00` and `FF` bytes between objects are padding and are
/// skipped. Any input either parses or throws a ``TLVError``: it never traps.
public enum BERTLVParser {
    /// Parses a sequence of TLV objects filling `bytes` exactly.
    public static func parse(_ bytes: [UInt8], limits: TLVLimits = .default) throws(TLVError) -> [TLVNode] {
        var count = 0
        return try parseSequence(bytes[...], depth: 0, limits: limits, count: &count)
    }

    private static func parseSequence(
        _ bytes: ArraySlice<UInt8>, depth: Int, limits: TLVLimits, count: inout Int
    ) throws(TLVError) -> [TLVNode] {
        var nodes: [TLVNode] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x00 || bytes[index] == 0xFF {
                index += 1
                continue
            }
            let tagStart = index
            index += 1
            if bytes[tagStart] & 0x1F == 0x1F {
                repeat {
                    guard index < bytes.endIndex else { throw .truncated(offset: tagStart, what: "tag") }
                    guard index - tagStart < 4 else { throw .tagTooLong(offset: tagStart) }
                    index += 1
                } while bytes[index - 1] & 0x80 != 0
            }
            let tag = TLVTag(bytes: Array(bytes[tagStart..<index]))
            guard index < bytes.endIndex else { throw .truncated(offset: index, what: "length") }
            let lengthOffset = index
            let first = bytes[index]
            index += 1
            var length = 0
            if first < 0x80 {
                length = Int(first)
            } else if first == 0x80 {
                throw .indefiniteLength(offset: lengthOffset)
            } else {
                let lengthBytes = Int(first & 0x7F)
                guard lengthBytes <= 4 else { throw .unsupportedLengthForm(offset: lengthOffset, byte: first) }
                guard bytes.endIndex - index >= lengthBytes else { throw .truncated(offset: lengthOffset, what: "length") }
                for _ in 0..<lengthBytes {
                    length = length << 8 | Int(bytes[index])
                    index += 1
                }
            }
            guard bytes.endIndex - index >= length else {
                throw .truncated(offset: lengthOffset, what: "value of tag \(tag.hex) (\(length) bytes)")
            }
            let value = bytes[index..<(index + length)]
            index += length
            count += 1
            guard count <= limits.maxNodes else { throw .tooManyNodes(limit: limits.maxNodes) }
            if tag.isConstructed {
                guard depth + 1 <= limits.maxDepth else { throw .tooDeep(offset: tagStart, limit: limits.maxDepth) }
                let children = try parseSequence(value, depth: depth + 1, limits: limits, count: &count)
                nodes.append(TLVNode(tag: tag, value: Array(value), children: children))
            } else {
                nodes.append(TLVNode(tag: tag, value: Array(value)))
            }
        }
        return nodes
    }
}
