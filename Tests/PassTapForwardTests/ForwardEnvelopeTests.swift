import Foundation
import NIOCore
import PassTapCore
import PassTapForward
import Testing

/// The webhook body is written around the stored event: `data` is its bytes as they are (never
/// decoded or encoded again), the other members strings as the socket's encoder writes them.
@Suite struct ForwardEnvelopeTests {
    @Test func theBodyIsWrittenAroundTheStoredEventWithItsStringsEncodedAsOnTheSocket() {
        // Stored bytes another encoder would write differently (`\/`, `\u0000`): kept as they are.
        let event = #"{"kind":"read.result","seq":1,"text":"a\/b \"q\" \u0000"}"#
        let item = OutboxItem(
            rowID: 1, instance: "6F1C2A", seq: 1, source: #"till "3" \ /é"#, kind: .readResult, reader: nil,
            time: Date(timeIntervalSince1970: 1_800_000_000), event: ByteBuffer(string: event))
        let body = String(buffer: ForwardEnvelope.body(for: item))
        #expect(body == #"{"data":"# + event + #","id":"6F1C2A:1","source":"till \"3\" \\ /é","timestamp":"2027-01-15T08:00:00.000Z","type":"read.result"}"#)
    }
}
