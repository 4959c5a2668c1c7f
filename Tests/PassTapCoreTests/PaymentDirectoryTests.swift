import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing

/// `[session] ppse`: the payment applications come from `2PAY.SYS.DDF01`, by priority, and
/// nothing beyond SELECT is ever sent.
@Suite(.timeLimit(.minutes(1))) struct PaymentDirectoryTests {
    static let visa = "A0000000031010"
    static let mastercard = "A0000000041010"

    /// `6F { 84 2PAY.SYS.DDF01, A5 { BF0C { 61 {4F visa, 50 VISA, 87 02}, 61 {4F mc, 50 MASTERCARD, 87 01} } } }`.
    static func ppse(_ entries: [(aid: String, label: String?, priority: UInt8?)]) -> [UInt8] {
        let listed: [UInt8] = entries.map { entry -> [UInt8] in
            var value = BERTLVWriter.encode(tag: 0x4F, value: try! [UInt8](hex: entry.aid))
            if let label = entry.label { value += BERTLVWriter.encode(tag: 0x50, value: Array(label.utf8)) }
            if let priority = entry.priority { value += BERTLVWriter.encode(tag: 0x87, value: [priority]) }
            return BERTLVWriter.encode(tag: 0x61, value: value)
        }.reduce([UInt8](), +)
        return BERTLVWriter.encode(
            tag: 0x6F,
            value: BERTLVWriter.encode(tag: 0x84, value: Array("2PAY.SYS.DDF01".utf8))
                + BERTLVWriter.encode(tag: 0xA5, value: BERTLVWriter.encode(tag: 0xBF0C, value: listed)))
    }

    @Test func applicationsAreSelectedInPriorityOrderAndReportedByAIDLabelAndPriority() throws {
        let card = ScriptedCard()
        card.applications[PaymentDirectory.aid.hex] = Self.ppse([(Self.visa, "VISA", 2), (Self.mastercard, "MASTERCARD", 1)])
        card.applications[Self.mastercard.uppercased()] = [0x6F, 0x00]
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.visa)], ppse: true), on: card)
        let directory = try #require(outcome.aid.ppse)
        #expect(directory.offered)
        #expect(directory.applications == [
            .init(aid: AID(stringLiteral: Self.mastercard), label: "MASTERCARD", priority: 1), .init(aid: AID(stringLiteral: Self.visa), label: "VISA", priority: 2),
        ])
        #expect(outcome.aid.selected == AID(stringLiteral: Self.mastercard))
        #expect(outcome.aid.attempts.map(\.aid.hex) == [PaymentDirectory.aid.hex, Self.mastercard])
        // Only SELECTs: no READ RECORD (B2), no GET PROCESSING OPTIONS (A8), ever.
        #expect(card.received.allSatisfy { $0[1] == 0xA4 })
    }

    @Test func unprioritisedEntriesComeLastInCardOrderAndConfiguredAIDsFollowOnce() throws {
        let directory = PaymentDirectory(fci: Self.ppse([("A0000000651010", nil, nil), (Self.visa, "VISA", 0x0F), ("A0000000250101", "AMEX", nil)]))
        #expect(directory.applications.map(\.aid.hex) == [Self.visa, "A0000000651010", "A0000000250101"])
        #expect(directory.applications[1].label == nil && directory.applications[1].priority == nil)

        let card = ScriptedCard()
        card.applications[PaymentDirectory.aid.hex] = Self.ppse([(Self.visa, "VISA", 1)])
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.visa), try AID(hex: Self.mastercard)], ppse: true), on: card)
        #expect(outcome.aid.attempts.map(\.aid.hex) == [PaymentDirectory.aid.hex, Self.visa, Self.mastercard])
        #expect(outcome.aid.selected == nil)
    }

    @Test func aCardWithoutPPSEIsNotOfferedAndTheConfiguredListRuns() throws {
        let card = ScriptedCard()
        card.applications[Self.mastercard] = [0x6F, 0x00]
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.mastercard)], ppse: true), on: card)
        #expect(outcome.aid.ppse == PaymentDirectory(offered: false, applications: []))
        #expect(outcome.aid.attempts == [.init(aid: PaymentDirectory.aid, sw: "6A82"), .init(aid: AID(stringLiteral: Self.mastercard), sw: "9000")])
    }

    @Test func aPPSEListingOneAIDAHundredTimesCostsOneSelect() throws {
        let card = ScriptedCard()
        card.applications[PaymentDirectory.aid.hex] = Self.ppse(Array(repeating: (Self.visa, nil, nil), count: 100))
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.visa)], ppse: true), on: card)
        let directory = try #require(outcome.aid.ppse)
        #expect(directory.applications == [.init(aid: AID(stringLiteral: Self.visa), label: nil, priority: nil)])
        #expect(directory.omitted == 0)
        #expect(outcome.aid.attempts == [.init(aid: PaymentDirectory.aid, sw: "9000"), .init(aid: AID(stringLiteral: Self.visa), sw: "6A82")])
        #expect(card.received.count == 2)
    }

    @Test func aRepeatedAIDKeepsItsFirstEntryByPriority() {
        let directory = PaymentDirectory(fci: Self.ppse([(Self.visa, "LOW", 3), (Self.mastercard, "MC", 2), (Self.visa, "HIGH", 1)]))
        #expect(directory.applications.map(\.label) == ["HIGH", "MC"])
    }

    @Test func atMostEightDirectoryApplicationsAreTriedAndTheRestCounted() throws {
        let listed = (0..<20).map { (String(format: "A00000099900%02X1010", $0), String?.none, UInt8?.none) }
        let card = ScriptedCard()
        card.applications[PaymentDirectory.aid.hex] = Self.ppse(listed)
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.mastercard)], ppse: true), on: card)
        let directory = try #require(outcome.aid.ppse)
        #expect(directory.applications.map(\.aid.hex) == listed.prefix(PaymentDirectory.maximumApplications).map(\.0))
        #expect(directory.omitted == 20 - PaymentDirectory.maximumApplications)
        // The PPSE, eight from the directory, then the configured list.
        #expect(outcome.aid.attempts.map(\.aid.hex) == [PaymentDirectory.aid.hex] + listed.prefix(8).map(\.0) + [Self.mastercard])
    }

    @Test func aLongLabelIsCutAndMarked() {
        let directory = PaymentDirectory(fci: Self.ppse([(Self.visa, String(repeating: "V", count: 300), 1)]))
        #expect(directory.applications.first?.label == String(repeating: "V", count: 16) + "...[300 bytes]")
    }

    @Test func garbageDirectoryListsNothing() {
        #expect(PaymentDirectory(fci: [0x6F, 0x20, 0x01]).applications.isEmpty)
        #expect(PaymentDirectory(fci: Self.ppse([("A000", "BAD", 1)])).applications.isEmpty)
    }
}
