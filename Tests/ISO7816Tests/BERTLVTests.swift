import ISO7816
import Testing

@Suite struct BERTLVTests {
    /// The Apple VAS SELECT answer of vas-protocol.md §2.2.
    static let vasSelect: [UInt8] = try! [UInt8](hex: "6F1D50084170706C655061799F210201009F2404E9CAEDE39F23040000003E")

    @Test func nestedMultiByteTagsParse() throws {
        let nodes = try BERTLVParser.parse(Self.vasSelect)
        let fci = try #require(nodes.first(0x6F))
        #expect(fci.tag.isConstructed)
        #expect(fci.first(0x50)?.value == Array("ApplePay".utf8))
        #expect(fci.first(0x9F21)?.value == [0x01, 0x00])
        #expect(fci.first(0x9F23)?.value == [0x00, 0x00, 0x00, 0x3E])
        #expect(fci.first(0x9F23)?.children == nil)
    }

    @Test func longFormLengthsParse() throws {
        let value = [UInt8](repeating: 0x41, count: 200)
        let nodes = try BERTLVParser.parse([0x9F, 0x27, 0x81, 0xC8] + value)
        #expect(nodes.first(0x9F27)?.value == value)
        let big = [UInt8](repeating: 0x42, count: 300)
        #expect(try BERTLVParser.parse([0x53, 0x82, 0x01, 0x2C] + big).first?.value == big)
    }

    @Test func paddingBetweenObjectsIsSkipped() throws {
        let nodes = try BERTLVParser.parse([0x00, 0x50, 0x01, 0x41, 0xFF, 0x00, 0x87, 0x01, 0x01, 0x00])
        #expect(nodes.map(\.tag.hex) == ["50", "87"])
    }

    @Test(arguments: [
        ("9F", "tag"),
        ("50", "length"),
        ("5005414243", "value"),
        ("5081", "length"),
        ("6F0550034142", "value"),
    ])
    func truncatedInputIsRejected(_ hex: String, _ part: String) throws {
        #expect {
            try BERTLVParser.parse(try [UInt8](hex: hex))
        } throws: { error in
            guard case .truncated(_, let what) = error as? TLVError else { return false }
            return what.contains(part)
        }
    }

    @Test func indefiniteAndOverLongLengthsAndLongTagsAreRejected() {
        #expect(throws: TLVError.indefiniteLength(offset: 1)) { try BERTLVParser.parse([0x6F, 0x80, 0x00, 0x00]) }
        #expect(throws: TLVError.unsupportedLengthForm(offset: 1, byte: 0x85)) { try BERTLVParser.parse([0x50, 0x85, 1, 1, 1, 1, 1]) }
        #expect(throws: TLVError.self) { try BERTLVParser.parse([0x50, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: TLVError.tagTooLong(offset: 0)) { try BERTLVParser.parse([0x9F, 0x81, 0x82, 0x83, 0x04, 0x00]) }
    }

    @Test func nestingDeeperThanTheLimitIsRejected() {
        var encoded: [UInt8] = [0x50, 0x00]
        for _ in 0..<17 { encoded = BERTLVWriter.encode(tag: 0x70, value: encoded) }
        #expect(throws: TLVError.tooDeep(offset: 32, limit: 16)) { try BERTLVParser.parse(encoded) }
        #expect((try? BERTLVParser.parse(encoded, limits: TLVLimits(maxDepth: 17))) != nil)
    }

    @Test func nodeCountIsCapped() {
        let many = Array([[UInt8]](repeating: [0x50, 0x00], count: 20).joined())
        #expect(throws: TLVError.tooManyNodes(limit: 10)) { try BERTLVParser.parse(many, limits: TLVLimits(maxNodes: 10)) }
    }

    @Test func everyProperPrefixOfANestedEncodingThrows() {
        let bytes = Self.vasSelect
        for length in 1..<bytes.count {
            #expect(throws: TLVError.self, "prefix of \(length) bytes") { try BERTLVParser.parse(Array(bytes.prefix(length))) }
        }
    }

    @Test func randomBytesNeverTrap() {
        var state: UInt64 = 0x2545F4914F6CDD1D
        var parsed = 0
        var rejected = 0
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 58)
            var input: [UInt8] = []
            for _ in 0..<length {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                input.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            if (try? BERTLVParser.parse(input)) != nil { parsed += 1 } else { rejected += 1 }
        }
        #expect(parsed > 0 && rejected > 0)
    }

    @Test(arguments: [0, 0x7F, 0x80, 0xFF, 0x100, 0x1_0000])
    func writerUsesMinimalLengthsAndRoundTrips(_ count: Int) throws {
        let value = [UInt8](repeating: 0x5A, count: count)
        let encoded = BERTLVWriter.encode(tag: 0x9F27, value: value)
        let expectedHeader: Int = count < 0x80 ? 1 : count < 0x100 ? 2 : count < 0x1_0000 ? 3 : 4
        #expect(encoded.count == 2 + expectedHeader + count)
        #expect(try BERTLVParser.parse(encoded) == [TLVNode(tag: 0x9F27, value: value)])
    }
}
