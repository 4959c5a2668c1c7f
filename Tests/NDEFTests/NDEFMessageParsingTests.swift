import NDEF
import Testing

@Suite struct NDEFMessageParsingTests {
    private func code(_ bytes: [UInt8], limits: NDEFLimits = .standard) -> NDEFError.Code? {
        do {
            _ = try NDEFMessage(parsing: bytes, limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    private func error(_ bytes: [UInt8], limits: NDEFLimits = .standard) -> NDEFError? {
        do {
            _ = try NDEFMessage(parsing: bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// ndeflib's messages of empty records: one (`D0 00 00`) and three (MB, none, ME).
    @Test func emptyRecordMessagesFromNdeflibParse() throws {
        #expect(try NDEFMessage(parsing: NDEFVectors.named("ndeflib/message-one-empty")).records == [NDEFRecord(tnf: .empty, type: [], payload: [])])
        let three = try NDEFMessage(parsing: NDEFVectors.named("ndeflib/message-three-empty"))
        #expect(three.records.count == 3)
        #expect(three.records.allSatisfy { $0.decoded() == .empty })
    }

    /// ndeflib's broken framings: MB missing on the first record, MB on a middle one, ME missing
    /// on the last, and CF on the last.
    @Test(arguments: [
        ("ndeflib/message-mb-not-first", NDEFError.Code.misplacedBeginOrEnd, 0),
        ("ndeflib/message-mb-in-middle", .misplacedBeginOrEnd, 3),
        ("ndeflib/message-me-not-last", .badChunk, 3),  // TNF 6 there is an unchanged record outside a chunk
        ("ndeflib/message-cf-in-last", .badChunk, 6),
    ])
    func brokenFramingsFromNdeflibAreRefusedWithTheirOffset(name: String, expected: NDEFError.Code, offset: Int) throws {
        let error = error(try NDEFVectors.named(name))
        #expect(error?.code == expected)
        #expect(error?.offset == offset)
    }

    /// Records run out before one flagged ME.
    @Test func aMessageWithoutMEIsTruncated() {
        let error = error(hex("90 00 00 10 00 00"))
        #expect(error?.code == .truncated)
        #expect(error?.offset == 6)
    }

    @Test func noBytesIsNotAMessage() {
        #expect(code([]) == .emptyMessage)
    }

    /// Every proper prefix of a valid message (long record, ID, two records) is refused as
    /// truncated: each length is checked against the bytes there before it is used.
    @Test func everyPrefixOfAMessageIsTruncated() {
        let bytes = NDEFMessage(records: [
            NDEFRecord(tnf: .media, type: Array("a/b".utf8), id: [7, 8], payload: Array(repeating: 0x41, count: 300)),
            .uri("https://example.com"),
        ]).encoded()
        for length in 1..<bytes.count {
            #expect(code(Array(bytes.prefix(length))) == .truncated, "prefix of \(length) bytes")
        }
    }

    /// A length field larger than everything left (a long record claiming 4 GiB) is refused
    /// before anything is allocated.
    @Test func aHugeDeclaredLengthIsRefusedAsTruncated() {
        let error = error(hex("C5 00 FF FF FF FF 00"))
        #expect(error?.code == .truncated)
        #expect(error?.offset == 6)
    }

    @Test func bytesAfterTheLastRecordAreRefused() {
        let error = error(hex("D0 00 00 00"))
        #expect(error?.code == .trailingBytes)
        #expect(error?.offset == 3)
    }

    @Test func tnf7IsReserved() {
        #expect(code(hex("D7 00 00")) == .reservedTypeNameFormat)
    }

    /// NDEF 1.0 §3.2.6: an empty record has no type, ID or payload; an unknown record no type;
    /// TNF 1-4 need a type; TNF 6 only continues a chunk.
    @Test(arguments: [
        "D0 01 00 41", "D8 00 00 01 41", "D0 00 01 41",  // empty record with a type, an ID, a payload
        "D5 01 00 41",  // unknown with a type
        "D1 00 00", "D2 00 00", "D3 00 00", "D4 00 00",  // well-known, media, absolute URI, external without a type
    ])
    func fieldsThatContradictTheTNFAreRefused(bytes: String) {
        #expect(code(hex(bytes)) == .fieldsContradictFormat)
    }

    /// Short (SR) and long records, an ID (IL), each TNF's type kept as bytes.
    @Test func headerFieldsAreRead() throws {
        let message = try NDEFMessage(parsing: hex("9A 03 00 02 61 2F 62 49 44") + hex("14 03 02 78 3A 79 AB CD") + hex("45 00 00 00 00 01 FF"))
        #expect(message.records == [
            NDEFRecord(tnf: .media, type: Array("a/b".utf8), id: Array("ID".utf8), payload: []),
            NDEFRecord(tnf: .external, type: Array("x:y".utf8), payload: [0xAB, 0xCD]),
            NDEFRecord(tnf: .unknown, type: [], payload: [0xFF]),
        ])
    }

    /// A record split in three chunks (CF, NDEF 1.0 §3.2.3) is reassembled into one record with
    /// the first chunk's TNF, type and ID.
    @Test func chunkedRecordsAreReassembled() throws {
        // MB CF SR media "a/b" id "i" "12" | CF SR unchanged "34" | SR unchanged "5" | ME SR U record.
        let bytes = hex("BA 03 02 01 61 2F 62 69 31 32") + hex("36 00 02 33 34") + hex("16 00 01 35") + hex("51 01 01 55 00")
        let message = try NDEFMessage(parsing: bytes)
        #expect(message.records == [
            NDEFRecord(tnf: .media, type: Array("a/b".utf8), id: Array("i".utf8), payload: Array("12345".utf8)),
            NDEFRecord(tnf: .wellKnown, type: Array("U".utf8), payload: [0]),
        ])
    }

    @Test(arguments: [
        ("D6 00 00", 0),  // unchanged record on its own
        ("B5 00 01 31 56 01 01 41 32", 4),  // a middle/last chunk with a type
        ("B5 00 01 31 5E 00 01 01 41 32", 4),  // a middle/last chunk with an ID
        ("B5 00 01 31 75 00 01 32", 4),  // a continuation chunk that is not TNF 6
        ("F5 00 01 31", 0),  // ME on a chunk that says more follow
        ("B5 00 01 31 76 00 01 32", 4),  // the message ends inside the chunked record
        ("B0 00 00 56 00 01 31", 0),  // an empty record cannot be chunked
    ])
    func brokenChunksAreRefused(bytes: String, offset: Int) {
        let error = error(hex(bytes))
        #expect(error?.code == .badChunk || error?.code == .fieldsContradictFormat, "\(bytes): \(String(describing: error))")
        #expect(error?.offset == offset)
    }

    @Test func theErrorDescriptionNamesCodeOffsetAndField() {
        let error = error(hex("D1 01 05 55 00"))
        #expect(error?.description == "NDEF truncated at offset 4: the PAYLOAD (5 bytes) runs past the end: 1 byte left")
    }
}
