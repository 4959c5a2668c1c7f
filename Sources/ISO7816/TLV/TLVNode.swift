/// One parsed BER-TLV data object.
public struct TLVNode: Hashable, Sendable {
    /// The tag.
    public var tag: TLVTag
    /// The value bytes (for constructed tags, the encoded children).
    public var value: [UInt8]
    /// The parsed children of a constructed tag; `nil` exactly when the tag is primitive.
    public var children: [TLVNode]?

    /// Creates a node.
    public init(tag: TLVTag, value: [UInt8], children: [TLVNode]? = nil) {
        self.tag = tag
        self.value = value
        self.children = children
    }

    /// The first direct child with this tag.
    public func first(_ tag: TLVTag) -> TLVNode? {
        children?.first { $0.tag == tag }
    }
}

extension Array where Element == TLVNode {
    /// The first node with this tag at this level.
    public func first(_ tag: TLVTag) -> TLVNode? {
        first { $0.tag == tag }
    }
}
