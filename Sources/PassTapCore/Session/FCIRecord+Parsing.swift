public import ISO7816

extension FCIRecord {
    /// Records FCI bytes as hex, with their TLV tree when they are valid BER-TLV.
    public init(bytes: [UInt8]) {
        let nodes = try? BERTLVParser.parse(bytes)
        self.init(hex: bytes.hexString, tlv: nodes?.map(TLVRecord.init))
    }
}

extension TLVRecord {
    /// The JSON form of a parsed BER-TLV node.
    public init(_ node: TLVNode) {
        if let children = node.children {
            self.init(tag: node.tag.hex, value: nil, children: children.map(TLVRecord.init))
        } else {
            self.init(tag: node.tag.hex, value: node.value.hexString, children: nil)
        }
    }
}
