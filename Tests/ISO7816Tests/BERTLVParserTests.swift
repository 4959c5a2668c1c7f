import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct BERTLVParserTests {
    /// The Apple VAS SELECT answer of vas-protocol.md §2.2: FCI `6F` holding `50`, `9F21`, `9F24`, `9F23`.
    static let vasSelectHex = "6F1D50084170706C655061799F210201009F2404E9CAEDE39F23040000003E"

    @Test func nestedObjectsWithMultiByteTagsParse() throws {
        let nodes = try BERTLVParser.parse(try [UInt8](hex: Self.vasSelectHex))
        #expect(nodes.count == 1)
        let fci = try #require(nodes.first(0x6F))
        #expect(fci.tag.isConstructed)
        let children = try #require(fci.children)
        #expect(children.map(\.tag.hex) == ["50", "9F21", "9F24", "9F23"])
        #expect(fci.first(0x50)?.value == Array("ApplePay".utf8))
        #expect(fci.first(0x9F21)?.tag.bytes == [0x9F, 0x21])
        #expect(fci.first(0x9F21)?.value == [0x01, 0x00])
        #expect(fci.first(0x9F24)?.value == [0xE9, 0xCA, 0xED, 0xE3])
        #expect(fci.first(0x9F23)?.value == [0x00, 0x00, 0x00, 0x3E])
    }

    @Test func aConstructedValueKeepsItsEncodedChildren() throws {
        let bytes = try [UInt8](hex: Self.vasSelectHex)
        let fci = try #require(try BERTLVParser.parse(bytes).first)
        #expect(fci.value == Array(bytes.dropFirst(2)))
    }

    @Test func primitiveObjectsHaveNoChildren() throws {
        let node = try #require(try BERTLVParser.parse([0x9F, 0x23, 0x01, 0x3E]).first)
        #expect(node.children == nil)
        #expect(!node.tag.isConstructed)
    }

    @Test func anEmptyConstructedObjectHasNoChildrenButIsNotPrimitive() throws {
        let node = try #require(try BERTLVParser.parse([0x70, 0x00]).first)
        #expect(node.children == [])
        #expect(node.value.isEmpty)
    }

    @Test func threeAndFourByteTagsParse() throws {
        let nodes = try BERTLVParser.parse([0xDF, 0x81, 0x01, 0x01, 0xAA, 0x9F, 0x81, 0x82, 0x03, 0x00])
        #expect(nodes.map(\.tag.hex) == ["DF8101", "9F818203"])
        #expect(nodes.first(0xDF8101)?.value == [0xAA])
        #expect(nodes.first(0x9F818203)?.value == [])
    }

    @Test func siblingsKeepTheirOrder() throws {
        let nodes = try BERTLVParser.parse([0x87, 0x01, 0x02, 0x50, 0x00, 0x87, 0x01, 0x03])
        #expect(nodes.map(\.tag.hex) == ["87", "50", "87"])
        #expect(nodes.first(0x87)?.value == [0x02])
    }

    @Test(arguments: [
        ("81", 0x80), ("81", 0xC8), ("81", 0xFF), ("82", 0x100), ("82", 0x12C), ("83", 0x1_0000),
    ] as [(String, Int)])
    func longFormLengthsParse(_ form: String, _ count: Int) throws {
        let value = (0..<count).map { UInt8(truncatingIfNeeded: $0) }
        let lengthBytes: Int = form == "81" ? 1 : form == "82" ? 2 : 3
        let length = (0..<lengthBytes).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
        let bytes = [0x9F, 0x27] + (try [UInt8](hex: form)) + length + value
        #expect(try BERTLVParser.parse(bytes) == [TLVNode(tag: 0x9F27, value: value)])
    }

    @Test func nonMinimalLongFormLengthsAreAccepted() throws {
        #expect(try BERTLVParser.parse([0x50, 0x81, 0x02, 0x41, 0x42]).first?.value == [0x41, 0x42])
        #expect(try BERTLVParser.parse([0x50, 0x84, 0x00, 0x00, 0x00, 0x01, 0x41]).first?.value == [0x41])
    }

    @Test func paddingBytes00AndFFBetweenObjectsAreSkipped() throws {
        let nodes = try BERTLVParser.parse([0x00, 0x50, 0x01, 0x41, 0xFF, 0x00, 0x87, 0x01, 0x01, 0x00, 0xFF])
        #expect(nodes.map(\.tag.hex) == ["50", "87"])
        #expect(nodes.map(\.value) == [[0x41], [0x01]])
    }

    @Test func paddingInsideAConstructedValueIsSkipped() throws {
        let node = try #require(try BERTLVParser.parse([0x70, 0x05, 0x00, 0x50, 0x01, 0x41, 0xFF]).first)
        #expect(node.children == [TLVNode(tag: 0x50, value: [0x41])])
    }

    @Test func emptyOrAllPaddingInputIsNoObjects() throws {
        #expect(try BERTLVParser.parse([]) == [])
        #expect(try BERTLVParser.parse([0x00, 0xFF, 0x00]) == [])
    }
}
