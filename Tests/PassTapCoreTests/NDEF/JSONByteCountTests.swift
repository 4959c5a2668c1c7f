import Foundation
import NDEF
import Testing

import PassTapCore

/// The NDEF member's cap counts JSON bytes without encoding (``JSONByteCount``): the count must be
/// exactly the length `JSONEncoder` (default settings, which the cap has always counted) writes,
/// for every value the cap counts, over the NDEF results' cases.
@Suite(.timeLimit(.minutes(1))) struct JSONByteCountTests {
    static func encoded(_ value: some Encodable) throws -> Int { try JSONEncoder().encode(value).count }

    /// The results of `NDEFReadResultTests`' cases and more: every record kind, escapes, a record
    /// over the cap (published bare), many records cut at the cap, a broken message, withheld.
    static func results() -> [NDEFReadResult] {
        let text = { (count: Int, byte: UInt8) in
            NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E] + [UInt8](repeating: byte, count: count))
        }
        let poster = NDEFRecord.smartPoster(
            uri: "https://example.com/menu?a=1&b=\"2\"", titles: [NDEFText(language: "en", text: "Menu"), NDEFText(language: "de", text: "Kärte\\")],
            action: 0)
        let kinds = [
            poster, NDEFRecord.text("Grüezi \u{0}\u{1F}\n\t\r\u{8}\u{C}/\u{2028}😀", language: "de-CH", encoding: .utf16),
            NDEFRecord.media("text/plain", id: Array("#1\u{7F}".utf8), payload: [0x41]), NDEFRecord.external("example.com:loyalty", payload: [0x01]),
            NDEFRecord(tnf: .wellKnown, type: [0x55], payload: []), NDEFRecord.uri("https://example.com"),
            NDEFRecord(tnf: .unknown, type: [], id: [0x00, 0xFF, 0x22], payload: [0x00]),
        ]
        let messages: [[UInt8]] = [
            NDEFMessage(records: [text(5, 0x61)]).encoded(),
            NDEFMessage(records: kinds).encoded(),
            NDEFMessage(records: [NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: [UInt8](repeating: 0x41, count: 8 * 1024 - 15))])
                .encoded(),
            NDEFMessage(records: [text(8000, 0x01), text(3, 0x61)]).encoded(),
            NDEFMessage(records: (0..<200).map { _ in text(100, 0x01) }).encoded(),
            [0xD1, 0x01, 0x0C, 0x55, 0x04],  // a record longer than the message: does not parse
        ]
        let read = messages.map { NDEFReadResult(tagType: .type2, message: $0) }
        return read + read.map { $0.withholding(.access) } + [NDEFReadResult(tagType: .type4, problem: "no NDEF application: \"6A82\"")]
    }

    @Test func theCountIsTheEncodersForEveryResultAndRecord() throws {
        for result in Self.results() {
            #expect(try JSONByteCount.of(result) == Self.encoded(result))
            for record in result.records ?? [] {
                #expect(try JSONByteCount.of(record) == Self.encoded(record), "\(record.type)")
                #expect(try JSONByteCount.of(record.bare) == Self.encoded(record.bare), "\(record.type)")
            }
        }
    }

    @Test func everyCharacterIsCountedAsTheEncoderEscapesIt() throws {
        let characters = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é", "\u{2028}", "\u{2029}", "😀", "\u{FEFF}"]
        for character in characters {
            #expect(JSONByteCount.string(character) == (try Self.encoded(character)), "U+\(String(character.unicodeScalars.first!.value, radix: 16))")
        }
        #expect(try JSONByteCount.of(characters) == Self.encoded(characters))
    }

    @Test func aCountedResultStillCapsAsTheEncoderWould() throws {
        // The cap's sums use the count: every capped result, encoded, fits.
        for result in Self.results() {
            #expect(try Self.encoded(result) <= NDEFReadResult.maximumEncodedBytes)
        }
        #expect(throws: EncodingError.self) { try JSONByteCount.of([1.5]) }
    }
}
