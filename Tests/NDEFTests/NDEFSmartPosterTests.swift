import NDEF
import Testing

@Suite struct NDEFSmartPosterTests {
    private func poster(_ bytes: [UInt8]) throws -> NDEFSmartPoster? {
        let message = try NDEFMessage(parsing: bytes)
        guard message.records.count == 1, case .smartPoster(let poster) = message.records[0].decoded() else { return nil }
        return poster
    }

    /// Android CTS's Smart Poster with a URL and no text.
    @Test func androidsSmartPosterWithoutText() throws {
        let poster = try #require(try poster(NDEFVectors.named("android-cts/smart-poster-url-no-text")))
        #expect(poster.uri == "http://www.google.com")
        #expect(poster.titles.isEmpty)
        #expect(poster.action == nil)
        #expect(poster.message.records == [.uri("http://www.google.com")])
    }

    /// ndeflib's Smart Poster with a URI, an English title and the action "do" (0).
    @Test func ndeflibsSmartPosterWithTitleAndAction() throws {
        let bytes = try NDEFVectors.named("ndeflib/smart-poster-uri-title-action")
        let poster = try #require(try poster(bytes))
        #expect(poster.uri == "http://nfcpy.org")
        #expect(poster.titles == [NDEFText(language: "en", text: "nfcpy")])
        #expect(poster.action == 0)
        #expect(NDEFMessage(records: [.smartPoster(uri: "http://nfcpy.org", titles: [NDEFText(language: "en", text: "nfcpy")], action: 0)]).encoded() == bytes)
    }

    /// libnfc's emulated Type 2 tag (the NDEF TLV on block 4) and Type 4 tag (the NDEF file,
    /// a 2-byte length then the message) hold the same Smart Poster: the title "Libnfc" before
    /// the URI http://libnfc.org. Our encoder writes the same bytes from the same records.
    @Test func libnfcsEmulatedTagsHoldTheSameSmartPoster() throws {
        let memory = try NDEFVectors.named("libnfc/tag2-memory")
        #expect(memory[16] == 0x03)
        let fromType2 = Array(memory[18..<(18 + Int(memory[17]))])
        let file = try NDEFVectors.named("libnfc/tag4-ndef-file")
        let fromType4 = Array(file[2..<(2 + (Int(file[0]) << 8 | Int(file[1])))])
        #expect(fromType2 == fromType4)
        let poster = try #require(try poster(fromType2))
        #expect(poster.uri == "http://libnfc.org")
        #expect(poster.titles == [NDEFText(language: "en", text: "Libnfc")])
        let rebuilt = NDEFRecord(
            tnf: .wellKnown, type: Array("Sp".utf8),
            payload: NDEFMessage(records: [.text("Libnfc", language: "en"), .uri("http://libnfc.org")]).encoded())
        #expect(NDEFMessage(records: [rebuilt]).encoded() == fromType2)
    }

    /// RTD-SP 1.0 requires exactly one URI record: none, or two, is malformed; so is a nested
    /// message that does not parse.
    @Test func aPosterWithoutExactlyOneURIIsMalformed() {
        let none = NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: NDEFMessage(records: [.text("t")]).encoded())
        #expect(none.decoded() == .malformed("the Smart Poster holds 0 URI records (RTD-SP 1.0 requires exactly one)"))
        let two = NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: NDEFMessage(records: [.uri("a:"), .uri("b:")]).encoded())
        #expect(two.decoded() == .malformed("the Smart Poster holds 2 URI records (RTD-SP 1.0 requires exactly one)"))
        let broken = NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: [0xD1, 0x01])
        #expect(broken.decoded() == .malformed("the Smart Poster's nested message: NDEF truncated at offset 2: the bytes end inside the PAYLOAD LENGTH field"))
    }

    @Test func extraRecordsStayInTheMessage() throws {
        let icon = NDEFRecord.media("image/png", payload: [0x89, 0x50])
        let record = NDEFRecord.smartPoster(uri: "https://example.com", action: 1, extra: [icon])
        guard case .smartPoster(let poster) = record.decoded() else {
            Issue.record("not a Smart Poster: \(record.decoded())")
            return
        }
        #expect(poster.action == 1)
        #expect(poster.message.records.last == icon)
    }
}
