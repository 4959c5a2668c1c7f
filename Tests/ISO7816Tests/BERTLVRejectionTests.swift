import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct BERTLVRejectionTests {
    /// Nests `[50 00]` inside `levels` constructed `70` objects.
    static func nested(levels: Int) -> [UInt8] {
        var encoded: [UInt8] = [0x50, 0x00]
        for _ in 0..<levels { encoded = BERTLVWriter.encode(tag: 0x70, value: encoded) }
        return encoded
    }

    /// Whether `error` is ``TLVError/truncated(offset:what:)`` at `offset`, its text naming `part`.
    static func isTruncated(_ error: TLVError?, at offset: Int, mentioning part: String) -> Bool {
        guard case .truncated(let at, let what) = error else { return false }
        return at == offset && what.contains(part)
    }

    @Test(arguments: [("9F", 0), ("9F81", 0), ("DF8182", 0), ("0000BF", 2)] as [(String, Int)])
    func aTruncatedTagIsRejected(_ hex: String, _ offset: Int) throws {
        let bytes = try [UInt8](hex: hex)
        let error = #expect(throws: TLVError.self) { try BERTLVParser.parse(bytes) }
        #expect(Self.isTruncated(error, at: offset, mentioning: "tag"))
    }

    @Test(arguments: [("50", 1), ("9F27", 2), ("5081", 1), ("508201", 1), ("5084000000", 1)] as [(String, Int)])
    func aTruncatedLengthIsRejected(_ hex: String, _ offset: Int) throws {
        let bytes = try [UInt8](hex: hex)
        let error = #expect(throws: TLVError.self) { try BERTLVParser.parse(bytes) }
        #expect(Self.isTruncated(error, at: offset, mentioning: "length"))
    }

    @Test(arguments: [("5005414243", 1, "50"), ("6F0550034142", 1, "6F"), ("50810241", 1, "50"),
                      ("5084FFFFFFFF41", 1, "50")] as [(String, Int, String)])
    func aValuePastTheEndIsRejected(_ hex: String, _ offset: Int, _ tag: String) throws {
        let bytes = try [UInt8](hex: hex)
        let error = #expect(throws: TLVError.self) { try BERTLVParser.parse(bytes) }
        #expect(Self.isTruncated(error, at: offset, mentioning: "value of tag \(tag)"))
    }

    @Test func offsetsInsideConstructedValuesCountFromTheOutermostInput() {
        // 6F 04 [50 03 41 42]: the child's length byte is at offset 3.
        let error = #expect(throws: TLVError.self) { try BERTLVParser.parse([0x6F, 0x04, 0x50, 0x03, 0x41, 0x42]) }
        #expect(Self.isTruncated(error, at: 3, mentioning: "value of tag 50"))
        #expect(throws: TLVError.indefiniteLength(offset: 3)) { try BERTLVParser.parse([0x6F, 0x03, 0x50, 0x80, 0x00]) }
    }

    @Test func theIndefiniteLength80IsRejected() {
        #expect(throws: TLVError.indefiniteLength(offset: 1)) { try BERTLVParser.parse([0x6F, 0x80, 0x00, 0x00]) }
        #expect(throws: TLVError.indefiniteLength(offset: 2)) { try BERTLVParser.parse([0x9F, 0x27, 0x80]) }
    }

    @Test(arguments: [0x85, 0x86, 0x88, 0xFE, 0xFF] as [UInt8])
    func lengthFormsOfFiveOrMoreBytesAreRejected(_ form: UInt8) {
        let bytes: [UInt8] = [0x50, form] + [UInt8](repeating: 0x01, count: 8)
        #expect(throws: TLVError.unsupportedLengthForm(offset: 1, byte: form)) { try BERTLVParser.parse(bytes) }
    }

    @Test func tagsLongerThanFourBytesAreRejected() {
        #expect(throws: TLVError.tagTooLong(offset: 0)) { try BERTLVParser.parse([0x9F, 0x81, 0x82, 0x83, 0x04, 0x00]) }
        #expect(throws: TLVError.tagTooLong(offset: 2)) { try BERTLVParser.parse([0x00, 0xFF, 0xDF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00]) }
    }

    @Test func nestingOneLevelOverTheLimitIsRejected() {
        // 17 nested 70s: the 17th sits at depth 16, offset 2 × 16.
        #expect(throws: TLVError.tooDeep(offset: 32, limit: 16)) { try BERTLVParser.parse(Self.nested(levels: 17)) }
    }

    @Test func nestingAtTheLimitParses() throws {
        var node = try #require(try BERTLVParser.parse(Self.nested(levels: 16)).first)
        var depth = 1
        while let child = node.children?.first, child.tag.isConstructed {
            node = child
            depth += 1
        }
        #expect(depth == 16)
        #expect(node.first(0x50)?.value == [])
    }

    @Test func theDepthLimitIsConfigurable() {
        #expect((try? BERTLVParser.parse(Self.nested(levels: 17), limits: TLVLimits(maxDepth: 17))) != nil)
        #expect(throws: TLVError.tooDeep(offset: 2, limit: 1)) {
            try BERTLVParser.parse(Self.nested(levels: 2), limits: TLVLimits(maxDepth: 1))
        }
    }

    @Test func theNodeCountIsCapped() {
        let siblings = { (count: Int) in Array([[UInt8]](repeating: [0x50, 0x00], count: count).joined()) }
        #expect(throws: TLVError.tooManyNodes(limit: 10)) { try BERTLVParser.parse(siblings(11), limits: TLVLimits(maxNodes: 10)) }
        #expect((try? BERTLVParser.parse(siblings(10), limits: TLVLimits(maxNodes: 10)))?.count == 10)
    }

    @Test func nestedObjectsCountTowardsTheNodeCap() {
        // One 70 holding nine or ten 50s: 10 objects pass a cap of 10, 11 do not.
        let holding = { (count: Int) in
            BERTLVWriter.encode(tag: 0x70, value: Array([[UInt8]](repeating: [0x50, 0x00], count: count).joined()))
        }
        #expect((try? BERTLVParser.parse(holding(9), limits: TLVLimits(maxNodes: 10))) != nil)
        #expect(throws: TLVError.tooManyNodes(limit: 10)) { try BERTLVParser.parse(holding(10), limits: TLVLimits(maxNodes: 10)) }
    }

    @Test(arguments: [
        BERTLVParserTests.vasSelectHex,
        // 70 81 xx { 9F27 81 80 <128 bytes>, A5 { DF8101 01 AA, BF0C 02 { 50 00 } } }
        BERTLVWriter.encode(tag: 0x70, value:
            BERTLVWriter.encode(tag: 0x9F27, value: [UInt8](repeating: 0x11, count: 128))
            + BERTLVWriter.encode(tag: 0xA5, value:
                BERTLVWriter.encode(tag: 0xDF8101, value: [0xAA])
                + BERTLVWriter.encode(tag: 0xBF0C, value: [0x50, 0x00]))).hexString,
    ])
    func everyProperPrefixOfANestedEncodingThrowsTruncated(_ hex: String) throws {
        let bytes = try [UInt8](hex: hex)
        #expect(try BERTLVParser.parse(bytes).count == 1)
        for length in 1..<bytes.count {
            let error = #expect(throws: TLVError.self, "prefix of \(length) bytes") {
                try BERTLVParser.parse(Array(bytes.prefix(length)))
            }
            guard case .truncated = error else {
                Issue.record("prefix of \(length) bytes: expected truncated, got \(String(describing: error))")
                continue
            }
        }
    }

    /// 64-bit linear congruential generator (Knuth's MMIX constants): the same inputs every run.
    struct LCG {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test func seededRandomBytesParseOrThrowButNeverTrap() {
        var random = LCG(state: 0x2545_F491_4F6C_DD1D)
        var parsed = 0
        var rejected = 0
        for _ in 0..<20_000 {
            let length = 1 + Int(random.next() >> 59)  // 1...32 bytes
            let input = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next() >> 33) }
            do {
                let nodes = try BERTLVParser.parse(input)
                parsed += 1
                #expect(nodes.allSatisfy { ($0.children == nil) != $0.tag.isConstructed })
            } catch {
                rejected += 1
            }
        }
        #expect(parsed + rejected == 20_000)
        #expect(parsed > 0)
        #expect(rejected > 0)
    }

    @Test(arguments: [
        (TLVError.truncated(offset: 3, what: "length"), "offset 3: length"),
        (.indefiniteLength(offset: 1), "(80) at offset 1"),
        (.unsupportedLengthForm(offset: 1, byte: 0x85), "85 at offset 1"),
        (.tagTooLong(offset: 7), "offset 7 is longer than 4 bytes"),
        (.tooDeep(offset: 32, limit: 16), "16 levels at offset 32"),
        (.tooManyNodes(limit: 4096), "more than 4096 objects"),
    ])
    func errorsSayWhereAndWhat(_ error: TLVError, _ fragment: String) {
        #expect(error.description.contains(fragment))
    }
}
