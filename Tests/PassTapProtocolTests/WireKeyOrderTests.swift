import Foundation
import NIOCore
import PassTapCore
import PassTapProtocol
import Testing

/// Every line PassTap writes lists an object's keys in one order, sorted, so two runs of the same
/// request give the same bytes (Foundation's own order follows its hash table, which is seeded
/// anew in each process). The pinned lines below fail if the order is anything else.
@Suite struct WireKeyOrderTests {
    static let reader = ReaderID.pcsc("Zeta Reader 00 00")
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    static func readerAdded(seq: UInt64 = 42) -> Event {
        Event(
            seq: seq, time: time, kind: .readerAdded, reader: reader,
            payload: .reader(ReaderInfo(id: reader, name: "Zeta Reader 00 00", backend: "pcsc", state: .present)))
    }

    static func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }

    @Test func anEventLineHasItsKeysSorted() {
        let line = EventNotificationEncoder.encode(Self.readerAdded())
        let expected =
            #"{"jsonrpc":"2.0","method":"event","params":{"backend":"pcsc","kind":"reader.added","name":"Zeta Reader 00 00","# +
            #""reader":"pcsc:Zeta Reader 00 00","reason":null,"seq":42,"state":"present","time":"2027-01-15T08:00:00.000Z"}}"# + "\n"
        #expect(Self.text(line) == expected)
    }

    @Test func anErrorAnswerHasItsKeysSorted() throws {
        let line = try NDJSON.encodeLine(JSONRPCResponse<JSONRPCNoResult>(id: .number(7), error: .methodNotFound("nope")))
        let text = Self.text(line)
        #expect(text.hasPrefix(#"{"error":{"code":-32601,"#), "\(text)")
        #expect(text.hasSuffix(#"},"id":7,"jsonrpc":"2.0"}"# + "\n"), "\(text)")
    }

    @Test func theSameValueGivesTheSameBytesEveryTime() throws {
        let lines = (0..<20).map { _ in Self.text(EventNotificationEncoder.encode(Self.readerAdded())) }
        #expect(Set(lines).count == 1)
        let status = try (0..<20).map { _ in try NDJSON.makeEncoder().encode(EventsDroppedParams(count: 3, firstSeq: 4, lastSeq: 6)) }
        #expect(Set(status).count == 1)
        #expect(String(decoding: status[0], as: UTF8.self) == #"{"count":3,"first_seq":4,"last_seq":6}"#)
    }
}
