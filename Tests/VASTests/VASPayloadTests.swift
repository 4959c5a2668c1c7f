import Foundation
import Testing
import VAS

/// Plaintext layout (vas-protocol.md §5.2 step 6) and the freshness window.
@Suite(.timeLimit(.minutes(1))) struct VASPayloadTests {
    @Test func timestampIsBigEndianSecondsSince2001() throws {
        let payload = try #require(VASPayload(plaintext: [0x00, 0x00, 0x00, 0x3C] + Array("hi".utf8)))
        #expect(payload.timestampRaw == 60)
        #expect(payload.unixTime == 978_307_260)
        #expect(payload.date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(payload.messageText == "hi")
        #expect(payload.plaintext == [0x00, 0x00, 0x00, 0x3C, 0x68, 0x69])
    }

    @Test func plaintextShorterThanTheTimestampIsRefused() {
        #expect(VASPayload(plaintext: [1, 2, 3]) == nil)
        #expect(VASPayload(plaintext: [1, 2, 3, 4])?.message == [])
    }

    @Test func invalidUTF8HasNoTextButAlwaysHex() throws {
        let payload = VASPayload(timestampRaw: 0, message: [0x41, 0xFF, 0xC3])
        #expect(payload.messageText == nil)
        #expect(payload.messageHex == "41FFC3")
        #expect(VASPayload(timestampRaw: 0, message: Array("é✓".utf8)).messageText == "é✓")
    }

    @Test(arguments: [
        (0, 1_000_000, VASFreshness.fresh), (60, 0, .fresh), (60, 60, .fresh), (60, -60, .fresh),
        (60, 61, .stale), (60, -61, .stale), (1, 3600, .stale),
    ])
    func freshnessComparesTheWindowWithTheHostClock(window: Int, skew: Int, expected: VASFreshness) {
        let payload = VASPayload(timestampRaw: 710_613_358, message: [])
        let now = payload.date.addingTimeInterval(TimeInterval(skew))
        #expect(payload.freshness(windowSeconds: window, now: now) == expected)
    }
}
