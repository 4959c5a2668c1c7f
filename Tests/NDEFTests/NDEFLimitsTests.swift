import NDEF
import Testing

@Suite struct NDEFLimitsTests {
    /// A hostile tag (docs/ndef.md, "Bounds"): 10 000 empty records (30 000 bytes) is refused at
    /// the 257th record, not parsed.
    @Test func tenThousandEmptyRecordsAreRefused() {
        var records: [UInt8] = [0x90, 0x00, 0x00]
        for _ in 0..<9_998 { records += [0x10, 0x00, 0x00] }
        records += [0x50, 0x00, 0x00]
        #expect(records.count == 30_000)
        #expect(throws: NDEFError(code: .tooManyRecords, offset: 256 * 3, message: "more than 256 records (chunks counted)")) {
            try NDEFMessage(parsing: records)
        }
    }

    /// Chunks count as records, so a record cut into many one-byte chunks cannot get round the
    /// limit.
    @Test func chunksCountTowardsTheRecordLimit() {
        let limits = NDEFLimits(maxMessageBytes: 1_000, maxRecords: 4, maxDepth: 2)
        let fourChunks = hex("B5 00 01 31 36 00 01 32 36 00 01 33 56 00 01 34")
        #expect((try? NDEFMessage(parsing: fourChunks, limits: limits))?.records.first?.payload == Array("1234".utf8))
        let fiveChunks = hex("B5 00 01 31 36 00 01 32 36 00 01 33 36 00 01 34 56 00 01 35")
        #expect(throws: NDEFError.self) { try NDEFMessage(parsing: fiveChunks, limits: limits) }
    }

    @Test func aMessageOverTheSizeLimitIsRefusedBeforeParsing() {
        let limits = NDEFLimits(maxMessageBytes: 8, maxRecords: 10, maxDepth: 2)
        let bytes = NDEFMessage(records: [NDEFRecord(tnf: .unknown, type: [], payload: Array(repeating: 0, count: 6))]).encoded()
        #expect(bytes.count == 9)
        do {
            _ = try NDEFMessage(parsing: bytes, limits: limits)
            Issue.record("a 9-byte message parsed with an 8-byte limit")
        } catch {
            #expect(error.code == .messageTooLarge)
        }
        #expect((try? NDEFMessage(parsing: bytes, limits: NDEFLimits(maxMessageBytes: 9, maxRecords: 10, maxDepth: 1))) != nil)
    }

    /// Nested Smart Posters (each one's payload another Smart Poster) stop at `maxDepth`, and the
    /// one too deep decodes as malformed instead of being parsed.
    @Test func nestingStopsAtTheDepthLimit() throws {
        var record = NDEFRecord.uri("https://example.com")
        for _ in 0..<10 {
            record = NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: NDEFMessage(records: [record]).encoded())
        }
        let limits = NDEFLimits(maxMessageBytes: 65_536, maxRecords: 16, maxDepth: 3)
        let top = try NDEFMessage(parsing: NDEFMessage(records: [record]).encoded(), limits: limits)
        var current = top.records[0]
        var levels = 1
        var remaining = limits
        while true {
            do {
                current = try current.nestedMessage(limits: remaining).records[0]
                remaining = remaining.nested
                levels += 1
            } catch {
                #expect(error.code == .tooDeep)
                break
            }
        }
        #expect(levels == 3)
        #expect(current.decoded(limits: remaining) == .malformed(
            "the Smart Poster's nested message: NDEF too_deep: the message nested in a 'Sp' record goes past the nesting limit (NDEFLimits.maxDepth)"))
    }

    @Test func theStandardLimits() {
        #expect(NDEFLimits.standard == NDEFLimits(maxMessageBytes: 65_536, maxRecords: 256, maxDepth: 8))
        #expect(NDEFLimits.standard.nested.maxDepth == 7)
    }
}
