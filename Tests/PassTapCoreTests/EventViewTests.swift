import Foundation
import ISO7816
import PassTapCore
import Testing
import VAS
import Wallets

/// What a subscriber without the `read` role sees: every event, each VAS entry without its pass
/// and marked `withheld: "access"`; with `read`, the event as published.
@Suite struct EventViewTests {
    static let reader = ReaderID.pcsc("Test Reader 00 00")
    static let card = CardInfo(atr: "3B80800101", uid: "04A1B2C3D4E5F6")

    /// A `read.result` with a decrypted pass (coffee) and a merchant whose pass was not there.
    static func readResultWithPass() -> Event {
        var coffee = VASEntry(passTypeID: "pass.com.example.coffee", status: .success, sw: "9000", keyID: VASKeyID(bytes: [1, 2, 3, 4]))
        coffee.publish(VASPayload(timestampRaw: 817_038_360, message: Array("member 0042".utf8)), variant: .a)
        let loyalty = VASEntry(passTypeID: "pass.com.example.loyalty", status: .dataNotFound, sw: "6A83", problem: "no such pass")
        let vas = VASSessionResult(
            offered: true, wallet: "ApplePay", version: "0100", capabilities: nil, mode: .vasOrPayment, problem: nil,
            entries: [loyalty, coffee])
        let result = ReadResult(card: card, target: .isoDep, session: SessionOutcome(vas: vas))
        return Event(
            seq: 7, time: Date(timeIntervalSince1970: 1_800_000_000), kind: .readResult, reader: reader, payload: .readResult(result))
    }

    static func entries(_ event: Event) throws -> [VASEntry] {
        guard case .readResult(let result) = event.payload else { throw ViewFailure() }
        return try #require(result.vas?.entries)
    }

    struct ViewFailure: Error {}

    @Test func withoutTheReadRoleEveryVASEntryLosesItsPassAndSaysWhy() throws {
        let event = Self.readResultWithPass()
        let viewed = event.viewed(as: .passesWithheld)
        let entries = try Self.entries(viewed)
        #expect(entries.map(\.withheld) == [.access, .access])
        #expect(entries.allSatisfy { $0.payload == nil && $0.variant == nil })
        // What is not decrypted data stays: who, what status, which key the phone named, why.
        #expect(entries.map(\.status) == [.dataNotFound, .success])
        #expect(entries.map(\.sw) == ["6A83", "9000"])
        #expect(entries[1].keyID == VASKeyID(bytes: [1, 2, 3, 4]))
        #expect(entries[0].problem == "no such pass")
        #expect(viewed.seq == event.seq && viewed.time == event.time && viewed.reader == event.reader)
    }

    @Test func withheldEntriesAreWrittenWithNullPayloadAndWithheldAccess() throws {
        let line = try JSONEncoder().encode(Self.readResultWithPass().viewed(as: .passesWithheld))
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        let vas = try #require(object["vas"] as? [String: Any])
        let entries = try #require(vas["entries"] as? [[String: Any]])
        for entry in entries {
            #expect(entry["withheld"] as? String == "access")
            for member in ["message", "message_hex", "timestamp", "timestamp_raw", "variant"] {
                #expect(entry[member] is NSNull, "\(member) should be null")
            }
        }
        #expect(!String(decoding: line, as: UTF8.self).contains("member 0042"))
        #expect(!String(decoding: line, as: UTF8.self).contains(Array("member 0042".utf8).hexString))
    }

    @Test func withTheReadRoleTheEventIsAsPublished() throws {
        let event = Self.readResultWithPass()
        #expect(event.viewed(as: .full) == event)
        let entries = try Self.entries(event)
        #expect(entries.map(\.withheld) == [nil, nil])
        #expect(entries[1].message == "member 0042")
        let line = try JSONEncoder().encode(event)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        let written = try #require((object["vas"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(written.allSatisfy { $0["withheld"] is NSNull })
        #expect(written[1]["message"] as? String == "member 0042")
    }

    @Test func eventsWithoutAPassAreTheSameInEveryView() {
        let plain = ReadResult(card: Self.card, target: .isoDep, session: SessionOutcome())
        let memory = ReadResult(card: Self.card, target: .memory, session: nil)
        let events = [
            Event(seq: 1, time: Date(), kind: .cardInserted, reader: Self.reader, payload: .card(Self.card)),
            Event(seq: 2, time: Date(), kind: .readResult, reader: Self.reader, payload: .readResult(plain)),
            Event(seq: 3, time: Date(), kind: .readResult, reader: Self.reader, payload: .readResult(memory)),
            Event(seq: 4, time: Date(), kind: .backendDown, reader: nil, payload: .backend(name: "pcsc", reason: "gone")),
        ]
        for event in events {
            #expect(event.viewed(as: .passesWithheld) == event)
        }
    }

    /// A `read.result` whose coffee entry is `stale`, 4 171 s old, published (`publish_stale`).
    static func readResultWithStalePass() -> Event {
        var coffee = VASEntry(
            passTypeID: "pass.com.example.coffee", status: .stale, sw: "9000", keyID: VASKeyID(bytes: [1, 2, 3, 4]),
            problem: "the pass timestamp is 4171 s old, outside the 60 s freshness window (a replayed read, or the phone's clock is wrong)")
        coffee.publish(VASPayload(timestampRaw: 817_038_360, message: Array("member 0042".utf8)), variant: .a)
        let vas = VASSessionResult(
            offered: true, wallet: "ApplePay", version: "0100", capabilities: nil, mode: .vasOrPayment, problem: nil, entries: [coffee])
        let result = ReadResult(card: card, target: .isoDep, session: SessionOutcome(vas: vas))
        return Event(
            seq: 8, time: Date(timeIntervalSince1970: 1_800_000_000), kind: .readResult, reader: reader, payload: .readResult(result))
    }

    @Test func aWithheldStaleEntrySaysOutsideTheWindowWithNoNumbers() throws {
        let event = Self.readResultWithStalePass()
        // With `read`, the figures stay.
        #expect(try Self.entries(event.viewed(as: .full))[0].problem?.contains("4171 s old") == true)
        let withheld = try Self.entries(event.viewed(as: .passesWithheld))[0]
        #expect(withheld.status == .stale && withheld.withheld == .access)
        #expect(withheld.problem == VASEntry.withheldStaleProblem)
        #expect(withheld.problem?.contains("outside the freshness window") == true)
        // Not one digit of the age (or of the window) in what the subscriber receives.
        let line = try JSONEncoder().encode(event.viewed(as: .passesWithheld))
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        let entries = try #require((object["vas"] as? [String: Any])?["entries"] as? [[String: Any]])
        let problem = try #require(entries[0]["problem"] as? String)
        #expect(!problem.contains { $0.isNumber }, "\(problem)")
        #expect(!String(decoding: line, as: UTF8.self).contains("4171"))
    }

    @Test func aWithheldEntryDecodesAsWithheld() throws {
        let viewed = Self.readResultWithPass().viewed(as: .passesWithheld)
        let decoded = try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(viewed))
        #expect(try Self.entries(decoded).map(\.withheld) == [.access, .access])
        #expect(try Self.entries(decoded).allSatisfy { $0.payload == nil })
    }
}
