import NDEF
import Testing

@Suite struct NDEFMessageEncodingTests {
    /// The RTD-URI 1.0 appendix A examples as Android's CTS quotes them (`BasicNdefTest`): our
    /// URI constructor and encoder give the same bytes, and they parse back to the URI.
    @Test(arguments: [
        ("android-cts/uri-www", "http://www.nfc.com"),
        ("android-cts/uri-tel", "tel:+35891234567"),
    ])
    func theRTDURIExamplesEncodeByteForByte(name: String, uri: String) throws {
        let bytes = try NDEFVectors.named(name)
        #expect(NDEFMessage(records: [.uri(uri)]).encoded() == bytes)
        #expect(try NDEFMessage(parsing: bytes).records.map { $0.decoded() } == [.uri(uri)])
    }

    /// nfcpy's documented Text record, "Hello World" in English, encodes byte for byte.
    @Test func nfcpysTextRecordEncodesByteForByte() throws {
        #expect(NDEFMessage(records: [.text("Hello World", language: "en")]).encoded() == (try NDEFVectors.named("nfcpy/text-hello-world")))
    }

    /// MB on the first record only, ME on the last only, SR below 256 bytes of payload, the
    /// 4-byte length from 256, IL with an ID.
    @Test func flagsFollowPlaceAndSize() throws {
        let message = NDEFMessage(records: [
            NDEFRecord(tnf: .unknown, type: [], payload: Array(repeating: 1, count: 255)),
            NDEFRecord(tnf: .unknown, type: [], payload: Array(repeating: 2, count: 256)),
            NDEFRecord(tnf: .external, type: Array("a:b".utf8), id: [9], payload: []),
        ])
        let bytes = message.encoded()
        #expect(Array(bytes[0..<3]) == [0x95, 0x00, 0xFF])
        #expect(Array(bytes[258..<264]) == [0x05, 0x00, 0x00, 0x00, 0x01, 0x00])
        #expect(Array(bytes[520...]) == hex("5C 03 00 01 61 3A 62 09"))
        #expect(try NDEFMessage(parsing: bytes) == message)
    }

    /// No records encode as the one empty record, which parses back as that record.
    @Test func theEmptyMessageIsOneEmptyRecord() throws {
        #expect(NDEFMessage(records: []).encoded() == [0xD0, 0x00, 0x00])
        #expect(try NDEFMessage(parsing: [0xD0, 0x00, 0x00]).records == [NDEFRecord(tnf: .empty, type: [], payload: [])])
    }

    @Test func mediaAndExternalRecordsKeepTypeAndPayload() throws {
        let message = NDEFMessage(records: [.media("text/plain", payload: Array("hi".utf8)), .external("example.com:thing", payload: [1, 2])])
        let parsed = try NDEFMessage(parsing: message.encoded())
        #expect(parsed.records.map { $0.decoded() } == [
            .media(type: "text/plain", payload: Array("hi".utf8)),
            .external(type: "example.com:thing", payload: [1, 2]),
        ])
    }

    @Test func otherFormatsDecodeAsTheirCase() throws {
        let message = try NDEFMessage(parsing: hex("93 05 00 61 3A 2F 2F 62") + hex("15 00 01 07") + hex("51 02 01 48 72 00"))
        #expect(message.records.map { $0.decoded() } == [.absoluteURI("a://b"), .unknown(payload: [7]), .other(type: Array("Hr".utf8), payload: [0])])
    }
}
