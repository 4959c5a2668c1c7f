import NDEF
import Testing

@Suite struct NDEFMessageTests {
    /// A one-record URI message round-trips through the encoder and the parser.
    @Test func aURIRecordRoundTrips() throws {
        let message = NDEFMessage(records: [.uri("https://www.example.com")])
        let bytes = message.encoded()
        #expect(bytes == [0xD1, 0x01, 0x0C, 0x55, 0x02] + Array("example.com".utf8))
        let parsed = try NDEFMessage(parsing: bytes)
        #expect(parsed == message)
        #expect(parsed.records[0].decoded() == .uri("https://www.example.com"))
    }
}
