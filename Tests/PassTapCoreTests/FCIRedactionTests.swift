import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing

/// What a session publishes of a selected application's FCI: never card numbers, track data,
/// names or dates; for a payment application from the PPSE directory, only AID, label and
/// priority.
@Suite(.timeLimit(.minutes(1))) struct FCIRedactionTests {
    static let mastercard = "A0000000041010"

    /// A payment application's FCI as an issuer might send it, with a PAN (5A), Track 2 equivalent
    /// (57) and expiry (5F24) hidden in the issuer discretionary data (BF0C), beside a PDOL (9F38).
    static let leakyFCI: [UInt8] = try! [UInt8](
        hex: "6F37" + "8407A0000000041010" + "A52C" + "500A4D415354455243415244" + "870101" + "9F3803 9F6604"
            + "BF0C14" + "5A085413330089010434" + "5F2403291231" + "5702AB12")

    @Test func theLeakyFixtureIsWellFormed() throws {
        let nodes = try BERTLVParser.parse(Self.leakyFCI)
        #expect(nodes.count == 1 && nodes[0].first(0xA5)?.first(0xBF0C)?.first(0x5A) != nil)
    }

    @Test func cardDataTagsAreRemovedWhereverTheyAppear() throws {
        let record = try #require(FCIRecord(bytes: Self.leakyFCI))
        #expect(record.redacted == ["5A", "5F24", "57"])
        #expect(!record.hex.contains("5413330089010434"))
        let kept = try BERTLVParser.parse([UInt8](hex: record.hex))
        let template = try #require(kept.first(0x6F)?.first(0xA5))
        #expect(template.first(0x9F38) != nil && template.first(0x50) != nil)
        #expect(template.first(0xBF0C)?.children == [])
        #expect(record.tlv == kept.map(TLVRecord.init))
    }

    @Test func anFCIWithoutCardDataIsPublishedAsSent() throws {
        let bytes = try [UInt8](hex: "6F1A8407A0000000041010A50F500A4D617374657243617264870101")
        let record = try #require(FCIRecord(bytes: bytes))
        #expect(record.hex == bytes.hexString && record.redacted == nil)
    }

    @Test func aPaymentApplicationKeepsOnlyAIDLabelAndPriority() throws {
        let record = try #require(FCIRecord(bytes: Self.leakyFCI, scope: .paymentApplication))
        #expect(record.hex == "6F1A8407A0000000041010A50F500A4D415354455243415244870101")
        #expect(record.redacted == ["9F38", "BF0C"])
    }

    @Test func anFCIThatDoesNotParseIsNeverPublished() {
        // The leaky FCI cut short by one byte: its PAN is there, but the TLV cannot be checked.
        let truncated = Array(Self.leakyFCI.dropLast())
        #expect(FCIRecord(bytes: truncated) == nil)
        #expect(FCIRecord(bytes: truncated, scope: .paymentApplication) == nil)
        #expect(FCIRecord(bytes: [0x6F, 0x09, 0x84]) == nil)
    }

    @Test func serviceCodeIsCardData() throws {
        let record = try #require(FCIRecord(bytes: try [UInt8](hex: "6F09 8403F00102 5F300102")))
        #expect(record.redacted == ["5F30"] && record.hex == "6F058403F00102")
    }

    @Test(arguments: [("5F53", "5F5302DE89"), ("5F54", "5F5402AB12"), ("42", "4203541333")])
    func ibanBICAndIINAreCardData(tag: String, object: String) throws {
        let bytes = try [UInt8](hex: "6F" + String(format: "%02X", 5 + object.count / 2) + "8403F00102" + object)
        let record = try #require(FCIRecord(bytes: bytes))
        #expect(record.redacted == [tag])
        #expect(record.hex == "6F058403F00102")
    }

    @Test func everyRemovedTagIsListedInTheSocketAPIDocument() throws {
        let document = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/socket-api.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let unlisted = FCIRecord.cardDataTags.map(\.hex).filter { !text.contains("`\($0)`") }
        #expect(unlisted.isEmpty, "docs/socket-api.md does not list the removed tags \(unlisted.sorted())")
    }

    @Test func anFCIOverThePublishedSizeIsOmittedWithTheReason() throws {
        let large = BERTLVWriter.encode(tag: 0x6F, value: BERTLVWriter.encode(tag: 0x9F10, value: [UInt8](repeating: 0x55, count: 1100)))
        #expect(FCIRecord.forPublication(large) == .failure(FCIRecord.Omitted(reason: "the FCI is \(large.count) bytes, over the 1024 published")))
        #expect(FCIRecord(bytes: large) == nil)
        // Measured after redaction: a payment application keeps only its AID, label and priority.
        let payment = BERTLVWriter.encode(
            tag: 0x6F, value: BERTLVWriter.encode(tag: 0x84, value: [0xA0, 0, 0, 0, 4, 0x10, 0x10])
                + BERTLVWriter.encode(tag: 0x9F10, value: [UInt8](repeating: 0x55, count: 1100)))
        let record = try FCIRecord.forPublication(payment, scope: .paymentApplication).get()
        #expect(record.hex == "6F098407A0000000041010" && record.redacted == ["9F10"])
    }

    @Test func anFCIThatDoesNotParseSaysWhy() throws {
        guard case .failure(let omitted) = FCIRecord.forPublication(Array(Self.leakyFCI.dropLast())) else {
            Issue.record("a truncated FCI was published")
            return
        }
        #expect(omitted.reason.hasPrefix("the FCI (56 bytes) is not valid BER-TLV (TLV truncated"))
        let card = ScriptedCard()
        card.applications[Self.mastercard] = Array(Self.leakyFCI.dropLast())
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.mastercard)]), on: card)
        #expect(outcome.aid.fci == nil && outcome.aid.fciOmitted == omitted.reason)
    }

    @Test func aSessionThroughThePPSEPublishesThePaymentApplicationTrimmed() throws {
        let card = ScriptedCard()
        card.applications[PaymentDirectory.aid.hex] = PaymentDirectoryTests.ppse([(Self.mastercard, "MASTERCARD", 1)])
        card.applications[Self.mastercard] = Self.leakyFCI
        let outcome = SessionEngine().run(SessionPlan(aids: [], ppse: true), on: card)
        #expect(outcome.aid.selected == AID(stringLiteral: Self.mastercard))
        #expect(outcome.aid.fci?.hex == "6F1A8407A0000000041010A50F500A4D415354455243415244870101")
        let json = try #require(String(data: try JSONEncoder().encode(outcome.aid), encoding: .utf8))
        #expect(!json.contains("5413330089010434") && !json.contains("9F6604"))
    }

    @Test func aConfiguredPaymentApplicationIsTrimmedWithoutThePPSE() throws {
        let card = ScriptedCard()
        card.applications[Self.mastercard] = Self.leakyFCI
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: Self.mastercard)]), on: card)
        #expect(outcome.aid.fci?.hex == "6F1A8407A0000000041010A50F500A4D415354455243415244870101")
        #expect(outcome.aid.fci?.redacted == ["9F38", "BF0C"])
    }

    @Test func aConfiguredApplicationOfNoPaymentSchemeLosesOnlyItsCardData() throws {
        let loyalty = "F0010203040506"
        let card = ScriptedCard()
        card.applications[loyalty] = Self.leakyFCI
        let outcome = SessionEngine().run(SessionPlan(aids: [try AID(hex: loyalty)]), on: card)
        #expect(outcome.aid.fci?.redacted == ["5A", "5F24", "57"])
        #expect(outcome.aid.fci?.hex.contains("9F3803") == true)
    }

    @Test(arguments: ["A0000000031010", "A0000000041010", "A00000002501", "A0000000651010", "A0000001523010", "A000000333010101"])
    func paymentSchemeAIDsAreRecognised(_ hex: String) throws {
        #expect(PaymentSchemes.contains(try AID(hex: hex)))
    }

    @Test func otherAIDsAreNotPaymentApplications() throws {
        #expect(!PaymentSchemes.contains(try AID(hex: "D2760000850101")))  // NFC Forum NDEF
        #expect(!PaymentSchemes.contains(try AID(hex: "4F53452E5641532E3031")))  // OSE.VAS.01
    }
}
