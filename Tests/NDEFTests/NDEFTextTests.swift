import NDEF
import Testing

@Suite struct NDEFTextTests {
    private func text(_ payload: [UInt8]) -> NDEFContent {
        NDEFRecord(tnf: .wellKnown, type: Array("T".utf8), payload: payload).decoded()
    }

    /// nfcpy's NTAG203 dump (pages 0-7): the NDEF TLV (`03 0B`) on page 4 holds the Text record
    /// "test" in English.
    @Test func nfcpysNTAG203DumpHoldsTheTextTest() throws {
        let pages = try NDEFVectors.named("nfcpy/ntag203-test-pages-0-7")
        #expect(pages[16] == 0x03)
        let length = Int(pages[17])
        let message = try NDEFMessage(parsing: Array(pages[18..<(18 + length)]))
        #expect(message.records.map { $0.decoded() } == [.text(NDEFText(language: "en", text: "test"))])
        #expect(message.encoded() == Array(pages[18..<(18 + length)]))
    }

    @Test func nfcpysHelloWorldDecodes() throws {
        let message = try NDEFMessage(parsing: NDEFVectors.named("nfcpy/text-hello-world"))
        #expect(message.records.map { $0.decoded() } == [.text(NDEFText(language: "en", text: "Hello World", encoding: .utf8))])
    }

    /// ndeflib's Text payloads: UTF-16 with a little-endian byte order mark, and UTF-8, in
    /// English and Greek.
    @Test(arguments: [
        ("ndeflib/text-payload-utf16-hello", NDEFText(language: "en", text: "Hello", encoding: .utf16)),
        ("ndeflib/text-payload-utf16-delta", NDEFText(language: "el", text: "\u{0394}", encoding: .utf16)),
        ("ndeflib/text-payload-utf8-delta", NDEFText(language: "el", text: "\u{0394}", encoding: .utf8)),
    ])
    func ndeflibsTextPayloadsDecode(name: String, expected: NDEFText) throws {
        #expect(text(try NDEFVectors.named(name)) == .text(expected))
    }

    /// UTF-16 with a big-endian mark, or with none (big-endian, RTD-Text 1.0 §3.4).
    @Test func utf16WithoutAMarkIsBigEndian() {
        #expect(text(hex("82 65 6E FE FF 00 48 00 69")) == .text(NDEFText(language: "en", text: "Hi", encoding: .utf16)))
        #expect(text(hex("82 65 6E 00 48 00 69")) == .text(NDEFText(language: "en", text: "Hi", encoding: .utf16)))
    }

    /// The encoder writes UTF-16 big-endian with its mark, and both encodings round-trip.
    @Test func textRecordsRoundTrip() throws {
        let utf16 = NDEFRecord.text("Grüße \u{1F600}", language: "de", encoding: .utf16)
        #expect(Array(utf16.payload.prefix(5)) == hex("82 64 65 FE FF"))
        for record in [utf16, NDEFRecord.text("Grüße", language: "de-AT")] {
            let parsed = try NDEFMessage(parsing: NDEFMessage(records: [record]).encoded())
            #expect(parsed.records == [record])
        }
        #expect(utf16.decoded() == .text(NDEFText(language: "de", text: "Grüße \u{1F600}", encoding: .utf16)))
    }

    @Test(arguments: [
        ("", "a Text record with no payload (it needs the status byte)"),
        ("05 65 6E", "the Text language code length 5 runs past the payload (2 bytes after the status byte)"),
        ("02 65 0A 41", "the Text language code is not printable ASCII"),
        ("02 65 6E C3", "the Text is flagged UTF-8 but is not UTF-8"),
        ("82 65 6E 00 48 00", "the Text is flagged UTF-16 but has an odd number of bytes (3)"),
        ("82 65 6E D8 00", "the Text is flagged UTF-16 but is not UTF-16"),
    ])
    func badTextPayloadsAreMalformed(payload: String, reason: String) {
        #expect(text(hex(payload)) == .malformed(reason))
    }
}
