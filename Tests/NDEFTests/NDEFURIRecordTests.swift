@testable import NDEF
import Testing

@Suite struct NDEFURIRecordTests {
    /// RTD-URI 1.0 table 3 has 36 codes, 00 to 23; each prefix written with its code expands back.
    @Test func everyIdentifierCodeRoundTrips() {
        #expect(NDEFURIPrefix.table.count == 0x24)
        for (code, prefix) in NDEFURIPrefix.table.enumerated() where code > 0 {
            let record = NDEFRecord.uri(prefix + "x")
            #expect(record.payload == [UInt8(code), 0x78], "code \(code) \(prefix)")
            #expect(record.decoded() == .uri(prefix + "x"))
        }
    }

    /// The longest prefix wins: `urn:nfc:` is 23, not `urn:` (13); `https://www.` is 02.
    @Test func theLongestPrefixIsChosen() {
        #expect(NDEFRecord.uri("urn:nfc:wkt:U").payload.first == 0x23)
        #expect(NDEFRecord.uri("urn:x").payload.first == 0x13)
        #expect(NDEFRecord.uri("https://www.a").payload.first == 0x02)
        #expect(NDEFRecord.uri("xyz").payload == [0x00] + Array("xyz".utf8))
    }

    /// ndeflib's URI message with no abbreviation (`smtp://`).
    @Test func ndeflibsUnabbreviatedURIDecodes() throws {
        let message = try NDEFMessage(parsing: NDEFVectors.named("ndeflib/uri-message-smtp"))
        #expect(message.records.map { $0.decoded() } == [.uri("smtp://nfcpy.org")])
    }

    /// ndeflib's bad URI payloads: the reserved code 24, and bytes that are not UTF-8; and no
    /// payload at all.
    @Test func badURIPayloadsAreMalformed() throws {
        let reserved = NDEFRecord(tnf: .wellKnown, type: Array("U".utf8), payload: try NDEFVectors.named("ndeflib/uri-payload-reserved-24"))
        #expect(reserved.decoded() == .malformed("URI identifier code 24 is reserved (RTD-URI 1.0 defines 00-23)"))
        let notUTF8 = NDEFRecord(tnf: .wellKnown, type: Array("U".utf8), payload: try NDEFVectors.named("ndeflib/uri-payload-not-utf8"))
        #expect(notUTF8.decoded() == .malformed("the URI after the identifier code is not UTF-8"))
        #expect(NDEFRecord(tnf: .wellKnown, type: Array("U".utf8), payload: []).decoded() == .malformed("a URI record with no payload (it needs the identifier code)"))
    }
}
