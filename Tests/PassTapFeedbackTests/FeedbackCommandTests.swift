import FeedbackSettings
import ISO7816
import PassTapCore
import PassTapFeedback
import Testing

/// The bytes each reader model takes, and which pattern a tap plays (docs/feedback.md).
@Suite struct FeedbackCommandTests {
    /// A green flash of 100 ms with the buzzer: update and blink green only, T1 1, T2 0, once,
    /// buzzer with T1.
    @Test func aPassIsAGreenFlashWithABeep() {
        let pass = FeedbackPattern(led: .green, onMilliseconds: 100, buzzer: true)
        #expect(FeedbackCommand.ledAndBuzzer(pass) == [0xFF, 0x00, 0x40, 0xA8, 0x04, 0x01, 0x00, 0x01, 0x01])
    }

    /// Red, 200 ms lit and 100 ms dark, three times, with the buzzer.
    @Test func anErrorIsThreeRedBlinksWithBeeps() {
        let error = FeedbackPattern(led: .red, onMilliseconds: 200, offMilliseconds: 100, repeats: 3, buzzer: true)
        #expect(FeedbackCommand.ledAndBuzzer(error) == [0xFF, 0x00, 0x40, 0x54, 0x04, 0x02, 0x01, 0x03, 0x01])
    }

    @Test func bothColoursAndNoBuzzerAndNoLED() {
        #expect(
            FeedbackCommand.ledAndBuzzer(FeedbackPattern(led: .both, onMilliseconds: 500, buzzer: false))
                == [0xFF, 0x00, 0x40, 0xFC, 0x04, 0x05, 0x00, 0x01, 0x00])
        // The buzzer alone: no LED is updated.
        #expect(
            FeedbackCommand.ledAndBuzzer(FeedbackPattern(led: .off, onMilliseconds: 300, buzzer: true))
                == [0xFF, 0x00, 0x40, 0x00, 0x04, 0x03, 0x00, 0x01, 0x01])
        // Out-of-range times are clamped to what one byte of 100 ms units holds.
        #expect(FeedbackCommand.ledAndBuzzer(FeedbackPattern(led: .red, onMilliseconds: 99_999, buzzer: false))[5] == 0xFF)
    }

    @Test func theACR122UAnswersNinetyAndItsLEDStateOrRefuses() {
        #expect(FeedbackCommand.tookLEDAndBuzzer([0x90, 0x02]))
        #expect(!FeedbackCommand.tookLEDAndBuzzer([0x63, 0x00]))
        #expect(!FeedbackCommand.tookLEDAndBuzzer([0x6A, 0x81]))
        #expect(!FeedbackCommand.tookLEDAndBuzzer([]))
    }

    @Test func theACR1252UEscapes() {
        #expect(FeedbackCommand.escapeLED(.green) == [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02])
        #expect(FeedbackCommand.escapeLED(.both) == [0xE0, 0x00, 0x00, 0x29, 0x01, 0x03])
        #expect(FeedbackCommand.escapeBuzzer(milliseconds: 100) == [0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A])
        #expect(FeedbackCommand.escapeReadDefaults == [0xE0, 0x00, 0x00, 0x21, 0x00])
        #expect(FeedbackCommand.escapeWriteDefaults(0x83 & ~FeedbackCommand.detectionBeepBit) == [0xE0, 0x00, 0x00, 0x21, 0x01, 0x83])
        #expect(FeedbackCommand.escapeWriteDefaults(0x8B & ~FeedbackCommand.detectionBeepBit) == [0xE0, 0x00, 0x00, 0x21, 0x01, 0x83])
    }

    /// PC/SC names as pcscd gives them, with the CCID driver's slot suffix.
    @Test(arguments: [
        ("ACS ACR122U PICC Interface 00 00", FeedbackModel.acr122u),
        ("ACS ACR122U 00 00", .acr122u),
        ("ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader PICC] 00 00", .acr1252u),
        ("ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 01 00", .acr1252u),
    ])
    func aReaderIsKnownByItsName(_ name: String, _ model: FeedbackModel) {
        #expect(FeedbackModel(readerName: name) == model)
    }

    @Test(arguments: ["Identiv uTrust 3700 F CL Reader 00 00", "HID Global OMNIKEY 5022 Smart Card Reader 00 00", "Virtual PCD 00 00", ""])
    func anyOtherReaderHasNoModel(_ name: String) {
        #expect(FeedbackModel(readerName: name) == nil)
    }

    /// Which pattern a tap plays: a pass, a tag and an error by name, anything else `no_pass`.
    @Test func aTapPlaysItsOutcome() {
        let card = CardInfo(atr: "3B8180018080", uid: "04A1B2C3")
        #expect(FeedbackOutcome(ReadResult(card: card, target: .memory, session: nil)) == .noPass)
        #expect(FeedbackOutcome(ReadResult(card: card, target: .isoDep, session: SessionOutcome())) == .noPass)
        let failed = SessionOutcome(error: ReadError(.cardRemoved, "gone"))
        #expect(FeedbackOutcome(ReadResult(card: card, target: .isoDep, session: failed)) == .error)
        let tag = NDEFReadResult(tagType: .type2, recordCount: 1, records: [])
        #expect(FeedbackOutcome(ReadResult(card: card, target: .memory, session: nil, ndef: tag)) == .tag)
    }
}

/// The driver's feature list, as libccid and acsccid give it.
@Suite struct ReaderFeaturesTests {
    @Test func theEscapeCodeIsTheOneTheDriverLists() throws {
        // libccid with ifdDriverOptions 0x0001: FEATURE_CCID_ESC_COMMAND at SCARD_CTL_CODE(1),
        // after another feature (FEATURE_IFD_PIN_PROPERTIES 0x0A).
        let libccid = try #require(ReaderFeatures(answer: [0x0A, 0x04, 0x42, 0x33, 0x00, 0x0A, 0x13, 0x04, 0x42, 0x00, 0x00, 0x01]))
        #expect(libccid.escapeCode == 0x4200_0001)
        #expect(try #require(ReaderFeatures(answer: [0x13, 0x04, 0x42, 0x00, 0x0D, 0xAC])).escapeCode == 0x4200_0000 + 3500)
        // libccid without the option lists no escape.
        #expect(try #require(ReaderFeatures(answer: [])).escapeCode == nil)
    }

    @Test(arguments: [[0x13], [0x13, 0x04, 0x42], [0x13, 0x02, 0x42, 0x00], [0x13, 0x04, 0x42, 0x00, 0x00, 0x01, 0x0A]])
    func aMalformedListIsRefused(_ answer: [UInt8]) {
        #expect(ReaderFeatures(answer: answer) == nil)
    }
}
