import Foundation
import ISO7816
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Testing
import NDEF
import VAS
import VASSettings

/// Every event line is at most 64 KiB (`NDJSON.maximumLineBytes`) whatever a card answers: each
/// field a card fills is capped, and what is left out says so (docs/socket-api.md, "What a card can
/// put in an event"). The lines that were too long before the caps are reproduced through the real
/// session engine and the real encoder.
@Suite(.timeLimit(.minutes(1))) struct EventLineSizeTests {
    static let reader = ReaderID.pcsc("Virtual PCD 00 00")
    static let atr: HexBytes = [0x3B, 0x80, 0x80, 0x01, 0x01]
    static let ndef = try! AID(hex: "D2760000850101")

    /// The `event` line of a `read.result` for `session`, without its newline, and its params.
    static func readResultLine(card: CardInfo = CardInfo(atr: atr, uid: [4, 0xA1, 0xB2, 0xC3]), _ session: SessionOutcome?) throws -> (bytes: Int, params: [String: Any]) {
        try line(.readResult, .readResult(ReadResult(card: card, target: .isoDep, session: session)))
    }

    static func line(_ kind: EventKind, _ payload: EventPayload) throws -> (bytes: Int, params: [String: Any]) {
        let event = Event(seq: 123_456, time: Date(timeIntervalSince1970: 1_800_000_000), kind: kind, reader: reader, payload: payload)
        let buffer = try NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event))
        let json = Data(buffer.readableBytesView.dropLast())
        let message = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        return (json.count, try #require(message["params"] as? [String: Any]))
    }

    /// `[vas]` on, one full-VAS merchant.
    static func vasPlan() throws -> VASPlan {
        var settings = Configuration.VAS()
        settings.enabled = true
        settings.merchants = [
            try VASMerchant(
                passTypeIdentifier: PassTypeIdentifier("pass.com.example.loyalty"), url: nil, filter: nil, keys: [MerchantKey.generate()],
                keyPaths: ["/keys/loyalty.pem"])
        ]
        return settings.plan()
    }

    /// A SELECT OSE.VAS.01 answer: `6F { 50 label, 9F21 version, 9F23 capabilities }`.
    static func vasSelectAnswer(label: [UInt8], version: [UInt8] = [0x01, 0x00]) -> [UInt8] {
        BERTLVWriter.encode(
            tag: 0x6F,
            value: BERTLVWriter.encode(tag: 0x50, value: label) + BERTLVWriter.encode(tag: 0x9F21, value: version)
                + BERTLVWriter.encode(tag: 0x9F23, value: [0x00, 0x00, 0x00, 0x3E]))
    }

    @Test func aWalletLabelOf8000BytesOf01StaysUnder64KiB() throws {
        let card = ScriptedCard()
        card.applications[VASApplication.aid.hex] = Self.vasSelectAnswer(label: [UInt8](repeating: 0x01, count: 8000))
        let outcome = SessionEngine().run(SessionPlan(aids: [], vas: try Self.vasPlan()), on: card)
        let (bytes, params) = try Self.readResultLine(outcome)
        // 97 KB before the caps (the label published twice, each byte as a 6-character escape).
        #expect(bytes <= NDJSON.maximumLineBytes, "read.result line of \(bytes) bytes")
        let vas = try #require(params["vas"] as? [String: Any])
        #expect(vas["wallet"] as? String == String(repeating: #"\x01"#, count: 32) + "...[8000 bytes]")
        let problem = try #require(vas["problem"] as? String)
        #expect(problem == "this wallet (see wallet) does not do Apple VAS; only ApplePay does")
    }

    @Test func an8KBFCIOfEmptyTLVsIsOmittedWithTheReason() throws {
        let card = ScriptedCard()
        card.applications[Self.ndef.hex] = [UInt8]((0..<4096).flatMap { _ in [0x01, 0x00] })
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.ndef]), on: card)
        let (bytes, params) = try Self.readResultLine(outcome)
        // 113 KB before the caps (4096 TLV nodes as JSON, and the FCI's hex).
        #expect(bytes <= NDJSON.maximumLineBytes, "read.result line of \(bytes) bytes")
        let aid = try #require(params["aid"] as? [String: Any])
        #expect(aid["selected"] as? String == Self.ndef.hex)
        #expect(aid["fci"] is NSNull)
        #expect(aid["fci_omitted"] as? String == "the FCI is 8192 bytes, over the 1024 published")
    }

    @Test func anFCIAtThePublishedLimitIsPublishedAndFits() throws {
        // 512 empty TLVs: the most JSON per FCI byte a card can get published.
        let card = ScriptedCard()
        card.applications[Self.ndef.hex] = [UInt8]((0..<512).flatMap { _ in [0x21, 0x00] })
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.ndef]), on: card)
        let (bytes, params) = try Self.readResultLine(outcome)
        #expect(bytes <= 20_000, "read.result line of \(bytes) bytes")
        let fci = try #require((params["aid"] as? [String: Any])?["fci"] as? [String: Any])
        #expect((fci["tlv"] as? [Any])?.count == 512)
    }

    @Test func aUIDOverTenBytesIsNullWithANote() throws {
        let card = CardInfo(atr: Self.atr, uid: HexBytes([UInt8](repeating: 0x04, count: 64)))
        for kind in [EventKind.cardInserted, .readResult] {
            let payload: EventPayload = kind == .cardInserted ? .card(card) : .readResult(ReadResult(card: card, target: .memory, session: nil))
            let (_, params) = try Self.line(kind, payload)
            #expect(params["uid"] is NSNull)
            #expect(params["uid_note"] as? String == "the reader gave a UID of 64 bytes; an ISO/IEC 14443 UID has at most 10, so it is not published")
        }
        let tenBytes = CardInfo(atr: Self.atr, uid: HexBytes([UInt8](repeating: 0x04, count: 10)))
        #expect(tenBytes.uid?.bytes.count == 10 && tenBytes.uidNote == nil)
    }

    @Test func theHubCountsAnEventAtTheLengthOfTheLineItSends() throws {
        let card = ScriptedCard()
        card.applications[Self.ndef.hex] = [0x6F, 0x03, 0x84, 0x01, 0x41]
        let result = ReadResult(
            card: CardInfo(atr: Self.atr, uid: [4, 1, 2, 3]), target: .isoDep, session: SessionEngine().run(SessionPlan(aids: [Self.ndef]), on: card))
        for payload in [EventPayload.readResult(result), .cardRemoved, .backend(name: "pcsc", reason: "a \"quoted\" reason/with a slash")] {
            let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 4)
            let event = hub.publish(.readResult, reader: Self.reader, payload: payload)
            let line = try NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event))
            #expect(hub.bufferedBytes == line.readableBytes)
        }
    }

    /// Everything a card fills, at once, as large as it can make it: the line still fits.
    @Test func theWorstCardStillGivesALineUnder64KiB() throws {
        let card = ScriptedCard()
        // A VAS answer claiming ApplePay with an 8000-byte version: reported, not followed.
        card.applications[VASApplication.aid.hex] = Self.vasSelectAnswer(
            label: Array("ApplePay".utf8), version: [UInt8](repeating: 0x7E, count: 8000))
        // A PPSE listing 60 distinct AIDs with 40-byte labels (near the 256-object parse limit) that
        // the card then refuses, and a configured application with the largest FCI published.
        let aids = try (0..<60).map { try AID(bytes: [0xA0, 0x00, 0x00, 0x09, 0x99, UInt8($0), 0x10, 0x10]) }
        let entries = aids.flatMap { aid in
            BERTLVWriter.encode(tag: 0x61, value: BERTLVWriter.encode(tag: 0x4F, value: aid.bytes) + BERTLVWriter.encode(tag: 0x50, value: [UInt8](repeating: 0x41, count: 40)))
        }
        card.applications[PaymentDirectory.aid.hex] = BERTLVWriter.encode(
            tag: 0x6F, value: BERTLVWriter.encode(tag: 0xA5, value: BERTLVWriter.encode(tag: 0xBF0C, value: entries)))
        card.applications[Self.ndef.hex] = [UInt8]((0..<512).flatMap { _ in [0x21, 0x00] })
        let plan = SessionPlan(aids: [Self.ndef], ppse: true, vas: try Self.vasPlan())
        let outcome = SessionEngine().run(plan, on: card)
        let info = CardInfo(
            atr: HexBytes([UInt8](repeating: 0x3B, count: 33)), uid: HexBytes([UInt8](repeating: 4, count: 4096)),
            atqa: [0x00, 0x44], sak: [0x20], ats: HexBytes([UInt8](repeating: 0x78, count: 254)))
        let (bytes, params) = try Self.readResultLine(card: info, outcome)
        #expect(bytes <= NDJSON.maximumLineBytes, "read.result line of \(bytes) bytes")
        let vas = try #require(params["vas"] as? [String: Any])
        #expect(vas["version"] as? String == String(repeating: "7E", count: 8) + "...[8000 bytes]")
        #expect((vas["problem"] as? String)?.utf8.count ?? .max < 300)
        let aid = try #require(params["aid"] as? [String: Any])
        #expect((aid["attempts"] as? [Any])?.count == 1 + PaymentDirectory.maximumApplications + 1)
        #expect(aid["selected"] as? String == Self.ndef.hex)
        let ppse = try #require(aid["ppse"] as? [String: Any])
        #expect(ppse["omitted"] as? Int == 60 - PaymentDirectory.maximumApplications)
        let labels = (ppse["applications"] as? [[String: Any]])?.compactMap { $0["label"] as? String }
        #expect(labels == Array(repeating: String(repeating: "A", count: 16) + "...[40 bytes]", count: PaymentDirectory.maximumApplications))
    }

    /// The worst card of the test above, with its application refused (so the Type 4 NDEF read
    /// runs), carrying the largest `ndef` each kind of hostile message can get published: the line
    /// still fits, and `ndef` stays within its own cap.
    @Test(arguments: ["control_characters", "many_records", "one_large_record"])
    func theWorstNDEFTagStillGivesALineUnder64KiB(kind: String) throws {
        let card = ScriptedCard()
        card.applications[VASApplication.aid.hex] = Self.vasSelectAnswer(
            label: Array("ApplePay".utf8), version: [UInt8](repeating: 0x7E, count: 8000))
        let plan = SessionPlan(aids: (0..<60).map { try! AID(bytes: [0xA0, 0x00, 0x00, 0x09, 0x99, UInt8($0)]) }, vas: try Self.vasPlan())
        var outcome = SessionEngine().run(plan, on: card)
        func text(_ count: Int) -> NDEFRecord {
            NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E] + [UInt8](repeating: 0x01, count: count))
        }
        let records: [NDEFRecord] =
            switch kind {
            case "control_characters": [text(8000), text(8000)]
            case "many_records": (0..<200).map { _ in text(120) }
            default: [NDEFRecord(tnf: .media, type: Array("application/octet-stream".utf8), payload: [UInt8](repeating: 0x22, count: 30_000))]
            }
        outcome.ndef = NDEFReadResult(tagType: .type4, message: NDEFMessage(records: records).encoded())
        let info = CardInfo(
            atr: HexBytes([UInt8](repeating: 0x3B, count: 33)), uid: HexBytes([UInt8](repeating: 4, count: 10)),
            atqa: [0x00, 0x44], sak: [0x20], ats: HexBytes([UInt8](repeating: 0x78, count: 254)))
        let (bytes, params) = try Self.readResultLine(card: info, outcome)
        #expect(bytes <= NDJSON.maximumLineBytes, "read.result line of \(bytes) bytes")
        let ndef = try #require(params["ndef"] as? [String: Any])
        let ndefBytes = try JSONEncoder().encode(try #require(outcome.ndef)).count
        #expect(ndefBytes <= NDEFReadResult.maximumEncodedBytes, "ndef of \(ndefBytes) bytes")
        #expect(ndef["record_count"] as? Int == records.count)
        #expect(ndef["truncated"] as? Bool == true)
    }
}
