import Foundation
import ISO7816
import NDEF
import PassTapCore
import Testing

/// `read.result`'s `ndef`: every member always present, its caps (36 KiB of
/// JSON, no raw hex above 8 KiB, `truncated` saying so), and what a subscriber without `read` sees.
@Suite(.timeLimit(.minutes(1))) struct NDEFReadResultTests {
    static let card = CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "04A23C1A7F2D80")

    /// `value` as the wire writes it (PassTapProtocol's `NDJSON.makeEncoder`: sorted keys, slashes
    /// not escaped).
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A Text record of `count` bytes of `byte` (language `en`), short or long.
    static func text(_ count: Int, byte: UInt8 = 0x61) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E] + [UInt8](repeating: byte, count: count))
    }

    static func message(_ records: [NDEFRecord]) -> [UInt8] { NDEFMessage(records: records).encoded() }

    @Test func aMemoryCardsNDEFIsEncodedWithEveryMember() throws {
        let ndef = NDEFReadResult(tagType: .type2, message: Self.message([Self.text(5)]))
        let line = try Self.json(ReadResult(card: Self.card, target: .memory, session: nil, ndef: ndef))
        #expect(line.contains(#""ndef":{"message_hex":"D101085402656E6161616161","problem":null,"record_count":1,"records":[{"action":null,"content":"text","encoding":"utf8","id":"","language":"en","payload_hex":"02656E6161616161","payload_length":8,"problem":null,"text":"aaaaa","titles":null,"tnf":"well_known","type":"T","uri":null}],"tag_type":"type2","truncated":false,"withheld":null},"sak":null"#))
        let decoded = try JSONDecoder().decode(ReadResult.self, from: Data(line.utf8))
        #expect(decoded.ndef == ndef)
    }

    @Test func anISODepTapsNDEFIsTheSessionsAndNullWhenNotLookedFor() throws {
        let ndef = NDEFReadResult(tagType: .type4, problem: "no NDEF application: SELECT D2760000850101 answered 6A82")
        let result = ReadResult(card: Self.card, target: .isoDep, session: SessionOutcome(ndef: ndef))
        #expect(result.ndef == ndef)
        let line = try Self.json(result)
        #expect(line.contains(#""ndef":{"message_hex":null,"problem":"no NDEF application: SELECT D2760000850101 answered 6A82","record_count":0,"records":null,"tag_type":"type4","truncated":false,"withheld":null}"#))
        #expect(try JSONDecoder().decode(ReadResult.self, from: Data(line.utf8)).ndef == ndef)
        #expect(try Self.json(ReadResult(card: Self.card, target: .isoDep, session: SessionOutcome())).contains(#""ndef":null,"sak""#))
    }

    @Test func eachRecordKindIsReportedWithWhatTheCodecDecoded() throws {
        let poster = NDEFRecord.smartPoster(
            uri: "https://example.com/menu", titles: [NDEFText(language: "en", text: "Menu"), NDEFText(language: "de", text: "Karte")], action: 0)
        let records = [
            poster, NDEFRecord.text("Grüezi", language: "de-CH", encoding: .utf16), NDEFRecord.media("text/plain", id: Array("#1".utf8), payload: [0x41]),
            NDEFRecord.external("example.com:loyalty", payload: [0x01]), NDEFRecord(tnf: .wellKnown, type: [0x55], payload: []),
        ]
        let result = NDEFReadResult(tagType: .type4, message: Self.message(records))
        #expect(result.problem == nil && result.recordCount == 5)
        let reports = try #require(result.records)
        #expect(reports[0].content == "smart_poster" && reports[0].type == "Sp")
        #expect(reports[0].uri == "https://example.com/menu" && reports[0].action == 0)
        #expect(reports[0].titles == [.init(language: "en", text: "Menu"), .init(language: "de", text: "Karte")])
        #expect(reports[1].content == "text" && reports[1].text == "Grüezi" && reports[1].language == "de-CH" && reports[1].encoding == "utf16")
        #expect(reports[2].content == "media" && reports[2].tnf == "media" && reports[2].type == "text/plain" && reports[2].id == "#1")
        #expect(reports[3].content == "external" && reports[3].tnf == "external" && reports[3].type == "example.com:loyalty")
        // A URI record without its prefix byte: the record is kept, marked malformed with the reason.
        #expect(reports[4].content == "malformed" && reports[4].problem?.isEmpty == false && reports[4].payloadLength == 0)
    }

    @Test func theRawHexIsPublishedUpTo8KiBAndLeftOutAbove() throws {
        // A media record (no decoded text beside its hex): 16 bytes of header and type.
        func media(_ count: Int) -> [UInt8] {
            Self.message([NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: [UInt8](repeating: 0x41, count: count))])
        }
        let atLimit = media(NDEFReadResult.maximumMessageHexBytes - 16)
        #expect(atLimit.count == NDEFReadResult.maximumMessageHexBytes)
        let published = NDEFReadResult(tagType: .type4, message: atLimit)
        #expect(published.messageHex == atLimit.hexString && !published.truncated)
        #expect(try Self.json(published).utf8.count <= NDEFReadResult.maximumEncodedBytes)
        let over = media(NDEFReadResult.maximumMessageHexBytes - 15)
        let cut = NDEFReadResult(tagType: .type4, message: over)
        #expect(cut.messageHex == nil && cut.truncated)
        #expect(cut.records?.first?.payloadHex != nil)
        #expect(cut.recordCount == 1 && cut.problem == nil)
        #expect(try Self.json(cut).utf8.count <= NDEFReadResult.maximumEncodedBytes)
    }

    @Test func aRecordOfControlCharactersTooLargeForTheCapIsPublishedBare() throws {
        // 8000 bytes of 01: each a 6-character escape in "text", 48 KB as it is.
        let message = Self.message([Self.text(8000, byte: 0x01), Self.text(3)])
        let result = NDEFReadResult(tagType: .type2, message: message)
        let size = try Self.json(result).utf8.count
        #expect(size <= NDEFReadResult.maximumEncodedBytes, "ndef of \(size) bytes")
        #expect(result.truncated)
        #expect(result.recordCount == 2)
        let first = try #require(result.records?.first)
        #expect(first.payloadHex == nil && first.text == nil && first.content == nil)
        #expect(first.payloadLength == 8003 && first.type == "T")
        #expect(result.records?.last?.text == "aaa")
    }

    @Test func manyRecordsAreCutAtTheCapAndStillCounted() throws {
        let records = (0..<200).map { _ in Self.text(100, byte: 0x01) }
        let result = NDEFReadResult(tagType: .type4, message: Self.message(records))
        let size = try Self.json(result).utf8.count
        #expect(size <= NDEFReadResult.maximumEncodedBytes, "ndef of \(size) bytes")
        #expect(result.recordCount == 200)
        #expect((result.records?.count ?? 0) < 200 && (result.records?.count ?? 0) > 10)
        #expect(result.truncated && result.messageHex == nil)
    }

    @Test func withoutTheReadRoleOnlyTheTagTypeTheCountAndTheProblemRemain() throws {
        let full = NDEFReadResult(tagType: .type2, message: Self.message([Self.text(5), NDEFRecord.uri("https://example.com")]))
        let event = Event(seq: 3, time: Date(timeIntervalSince1970: 1_800_000_000), kind: .readResult, reader: .pcsc("R 00 00"),
            payload: .readResult(ReadResult(card: Self.card, target: .memory, session: nil, ndef: full)))
        guard case .readResult(let withheld) = event.viewed(as: .passesWithheld).payload,
            case .readResult(let unchanged) = event.viewed(as: .full).payload
        else {
            Issue.record("not a read.result")
            return
        }
        #expect(unchanged.ndef == full)
        let ndef = try #require(withheld.ndef)
        #expect(ndef.tagType == .type2 && ndef.recordCount == 2)
        #expect(ndef.records == nil && ndef.messageHex == nil)
        #expect(ndef.withheld == .access)
        #expect(try Self.json(ndef) == #"{"message_hex":null,"problem":null,"record_count":2,"records":null,"tag_type":"type2","truncated":false,"withheld":"access"}"#)
        // A Type 4 tag's, carried in the session, is withheld the same way.
        let session = Event(seq: 4, time: Date(timeIntervalSince1970: 1_800_000_000), kind: .readResult, reader: .pcsc("R 00 00"),
            payload: .readResult(ReadResult(card: Self.card, target: .isoDep, session: SessionOutcome(ndef: full))))
        guard case .readResult(let type4) = session.viewed(as: .passesWithheld).payload else { return }
        #expect(type4.ndef?.records == nil && type4.ndef?.withheld == .access && type4.ndef?.recordCount == 2)
    }
}
