import Foundation
import ISO7816
import PassTapCore
import SmartTap
import Testing
import VAS

/// `read.result`'s `smarttap`: where the one encoder puts it, `null` when there is none, and what
/// a subscriber without the `read` role sees of it.
@Suite struct SmartTapResultTests {
    static let reader = ReaderID.pcsc("Test Reader 00 00")
    static let card = CardInfo(atr: "3B80800101", uid: "04A1B2C3D4E5F6")

    static let read = SmartTapSessionResult(
        offered: true, version: "0001", status: .success, sw: "9000", customerID: "4B3C2D1E", tapID: "0F1E2D3C",
        objects: [SmartTapPublishedObject(type: "loyalty", issuerID: "3388000000012345678", objectID: "3388.member-0042", value: "member 0042")],
        collectorID: 20_180_608)

    static func event(_ smartTap: SmartTapSessionResult?) -> Event {
        let result = ReadResult(card: card, target: .isoDep, session: SessionOutcome(smartTap: smartTap), duration: .milliseconds(12))
        return Event(seq: 3, time: Date(timeIntervalSince1970: 1_800_000_000), kind: .readResult, reader: reader, payload: .readResult(result))
    }

    /// The event as the wire writes it: keys sorted.
    static func text(_ event: Event) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(event), as: UTF8.self)
    }

    static func object(_ event: Event) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? [String: Any])
    }

    @Test func smartTapIsWrittenOnceWithEveryMember() throws {
        let text = try Self.text(Self.event(Self.read))
        #expect(text.components(separatedBy: "\"smarttap\":").count == 2)
        #expect(text.contains(#""smarttap":{"code":null,"collector_id":20180608,"customer_id":"4B3C2D1E","objects":[{"issuer_id":"3388000000012345678","object_id":"3388.member-0042","type":"loyalty","value":"member 0042"}],"offered":true,"problem":null,"status":"success","sw":"9000","tap_id":"0F1E2D3C","version":"0001","withheld":null}"#), "\(text)")
    }

    @Test func noSmartTapIsNullAndARefusalCarriesItsCodeInHex() throws {
        #expect(try Self.object(Self.event(nil))["smarttap"] is NSNull)
        let refused = SmartTapSessionResult(offered: true, version: "0001", status: .refused, sw: "9406", code: 0x06, problem: "refused")
        let written = try #require(try Self.object(Self.event(refused))["smarttap"] as? [String: Any])
        #expect(written["code"] as? String == "06" && written["status"] as? String == "refused" && written["sw"] as? String == "9406")
        #expect(written["objects"] as? [Any] != nil && written["customer_id"] is NSNull)
    }

    @Test func theResultDecodesToWhatWasEncoded() throws {
        let event = Self.event(Self.read)
        let decoded = try JSONDecoder().decode(Event.self, from: JSONEncoder().encode(event))
        guard case .readResult(let result) = decoded.payload else { throw CancellationError() }
        #expect(result.smartTap == Self.read)
    }

    @Test func withoutTheReadRoleThePayloadIsWithheldAndTheStatusStays() throws {
        let viewed = Self.event(Self.read).viewed(as: .passesWithheld)
        guard case .readResult(let result) = viewed.payload else { throw CancellationError() }
        let smartTap = try #require(result.smartTap)
        #expect(smartTap.withheld == .access)
        #expect(smartTap.customerID == nil && smartTap.tapID == nil && smartTap.objects.isEmpty)
        #expect(smartTap.status == .success && smartTap.sw == "9000" && smartTap.version == "0001" && smartTap.offered)
        let text = try Self.text(viewed)
        #expect(text.contains(#""smarttap":{"code":null,"collector_id":20180608,"customer_id":null,"objects":null,"offered":true,"problem":null,"status":"success","sw":"9000","tap_id":null,"version":"0001","withheld":"access"}"#), "\(text)")
        for secret in ["4B3C2D1E", "0F1E2D3C", "member 0042", "3388"] { #expect(!text.contains(secret)) }
        // With the read role, as published.
        #expect(Self.event(Self.read).viewed(as: .full) == Self.event(Self.read))
    }

    @Test func aNonSuccessRecordIsMarkedWithheldTooSoEveryRecordSaysTheSame() throws {
        let viewed = Self.event(SmartTapSessionResult(offered: true, status: .noPass, sw: "9001", problem: "no pass")).viewed(as: .passesWithheld)
        guard case .readResult(let result) = viewed.payload else { throw CancellationError() }
        #expect(result.smartTap?.withheld == .access && result.smartTap?.problem == "no pass")
    }
}

/// What a hostile phone chooses cannot grow `smarttap` past a few KiB: it needs no collector
/// secret to pass the MAC check (the keys come from its own ephemeral key), so the published
/// result bounds every value it sends.
@Suite struct SmartTapResultBoundsTests {
    static let huge = String(repeating: "A", count: 40_000)

    @Test func oversizedValuesAndVersionAreLeftOutAndCounted() throws {
        let objects = (0..<20).map { _ in SmartTapServiceObject(type: .loyalty, issuerID: Self.huge, objectID: "1234", value: Self.huge) }
        let outcome = SmartTapOutcome(
            status: .success, sw: "9000", version: Self.huge, customerID: Self.huge, tapID: "0F1E", objects: objects)
        let result = SmartTapSessionResult(outcome)
        let encoded = try JSONEncoder().encode(result)
        #expect(encoded.count < 16 * 1024, "\(encoded.count) bytes")
        #expect(result.version == nil && result.customerID == nil && result.tapID == "0F1E")
        #expect(result.objects.count == SmartTapSessionResult.maximumObjects)
        #expect(result.objects.allSatisfy { $0.value == nil && $0.issuerID == nil && $0.objectID == "1234" })
        let problem = try #require(result.problem)
        #expect(problem.contains("version") && problem.contains("4 service objects") && problem.contains("33 values"), "\(problem)")
    }

    @Test func aStatusOtherThanSuccessPublishesNoPayload() {
        let outcome = SmartTapOutcome(
            status: .noPass, sw: "9102", version: "0001", customerID: "4B3C", tapID: "0F1E",
            objects: [SmartTapServiceObject(type: .offer, value: "10% off")])
        let result = SmartTapSessionResult(outcome)
        #expect(result.customerID == nil && result.tapID == nil && result.objects.isEmpty)
        #expect(result.status == .noPass && result.version == "0001")
    }

    @Test func valuesWithinTheBoundsArePublishedAsTheyCame() {
        let value = String(repeating: "7", count: SmartTapSessionResult.maximumValueCharacters)
        let outcome = SmartTapOutcome(
            status: .success, sw: "9000", version: "0001", customerID: "4B3C", tapID: "0F1E",
            objects: [SmartTapServiceObject(type: .loyalty, issuerID: "1000", objectID: "42", value: value)])
        let result = SmartTapSessionResult(outcome)
        #expect(result.objects.first?.value == value && result.customerID == "4B3C" && result.problem == nil)
    }
}
