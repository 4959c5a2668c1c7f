import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct BERTLVWriterTests {
    @Test(arguments: [
        (0, "00"), (0x7F, "7F"), (0x80, "8180"), (0xFF, "81FF"), (0x100, "820100"),
        (0xFFFF, "82FFFF"), (0x1_0000, "83010000"), (0xFF_FFFF, "83FFFFFF"),
        (0x100_0000, "8401000000"), (0x7FFF_FFFF, "847FFFFFFF"),
    ] as [(Int, String)])
    func lengthsUseTheShortestForm(_ count: Int, _ hex: String) {
        #expect(BERTLVWriter.encodeLength(count).hexString == hex)
    }

    @Test func anObjectIsTagThenLengthThenValue() {
        #expect(BERTLVWriter.encode(tag: 0x9F27, value: [0x01, 0x02]).hexString == "9F27020102")
        #expect(BERTLVWriter.encode(tag: 0x50, value: []).hexString == "5000")
        let long = BERTLVWriter.encode(tag: 0x53, value: [UInt8](repeating: 0xAB, count: 0x80))
        #expect(long.prefix(3) == [0x53, 0x81, 0x80])
        #expect(long.count == 3 + 0x80)
    }

    @Test(arguments: [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x1_0000])
    func aPrimitiveObjectRoundTrips(_ count: Int) throws {
        let value = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let node = TLVNode(tag: 0x9F27, value: value)
        #expect(try BERTLVParser.parse(BERTLVWriter.encode(node)) == [node])
    }

    /// A constructed node whose `value` is its children's encoding, as the parser produces it.
    static func constructed(_ tag: TLVTag, _ children: [TLVNode]) -> TLVNode {
        TLVNode(tag: tag, value: children.flatMap { BERTLVWriter.encode($0) }, children: children)
    }

    @Test func aNestedTreeRoundTrips() throws {
        let tree = Self.constructed(0x6F, [
            TLVNode(tag: 0x50, value: Array("ApplePay".utf8)),
            Self.constructed(0xA5, [
                TLVNode(tag: 0xDF8101, value: [0xAA]),
                Self.constructed(0xBF0C, [TLVNode(tag: 0x9F818203, value: [UInt8](repeating: 0x33, count: 300))]),
                Self.constructed(0x70, []),
            ]),
            TLVNode(tag: 0x9F23, value: [0x00, 0x00, 0x00, 0x3E]),
        ])
        let encoded = BERTLVWriter.encode(tree)
        #expect(try BERTLVParser.parse(encoded) == [tree])
        #expect(BERTLVWriter.encode(try #require(try BERTLVParser.parse(encoded).first)) == encoded)
    }

    @Test func constructedNodesAreEncodedFromTheirChildrenNotTheirValue() {
        let stale = TLVNode(tag: 0x70, value: [0xDE, 0xAD], children: [TLVNode(tag: 0x50, value: [0x41])])
        #expect(BERTLVWriter.encode(stale).hexString == "7003500141")
    }

    @Test func theParsedVASSelectAnswerIsReEncodedByteForByte() throws {
        let bytes = try [UInt8](hex: BERTLVParserTests.vasSelectHex)
        let nodes = try BERTLVParser.parse(bytes)
        #expect(nodes.flatMap { BERTLVWriter.encode($0) } == bytes)
    }
}
