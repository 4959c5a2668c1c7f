import FeedbackSettings
import ISO7816
import Logging
import PassTapCore
import PassTapFeedback
import PassTapTestSupport
import Synchronization
import Testing

/// The feedback hook with a fake reader (`ScriptedCard` as the card's connection): the pattern of
/// the tap's outcome goes to a reader of a known model, a refusal is noted and the tap stays read.
@Suite(.timeLimit(.minutes(1))) struct FeedbackHookTests {
    let acr122u = ReaderID.pcsc("ACS ACR122U PICC Interface 00 00")
    let card = CardInfo(atr: "3B8180018080", uid: "04A1B2C3")

    func hook(_ feedback: Configuration.Feedback) -> FeedbackHook {
        var logger = Logger(label: "passtap.test.feedback")
        logger.logLevel = .critical
        return FeedbackHook(settings: { feedback }, logger: logger)
    }

    var on: Configuration.Feedback {
        var feedback = Configuration.Feedback()
        feedback.enabled = true
        return feedback
    }

    /// A card that answers `FF 00 40` as an ACR122U does (`90` and its LED state), or `refusal`.
    func reader(answering refusal: [UInt8]? = nil) -> ScriptedCard {
        let card = ScriptedCard()
        card.onCommand = { $0.starts(with: [0xFF, 0x00, 0x40]) ? (refusal ?? [0x90, 0x02]) : nil }
        return card
    }

    @Test func eachOutcomeSendsItsPattern() {
        let hook = hook(on)
        let channel = reader()
        let failed = ReadResult(card: card, target: .isoDep, session: SessionOutcome(error: ReadError(.cardRemoved, "gone")))
        hook.tapFinished(ReaderAccess(reader: acr122u, channel: channel, control: nil), result: failed)
        hook.tapFinished(ReaderAccess(reader: acr122u, channel: channel, control: nil), result: ReadResult(card: card, target: .isoDep, session: SessionOutcome()))
        #expect(channel.received == [
            FeedbackCommand.ledAndBuzzer(Configuration.Feedback.defaultPatterns[.error]!),
            FeedbackCommand.ledAndBuzzer(Configuration.Feedback.defaultPatterns[.noPass]!),
        ])
        #expect(channel.received[0] == [0xFF, 0x00, 0x40, 0x54, 0x04, 0x01, 0x01, 0x03, 0x01])
        #expect(hook.state(of: acr122u) == "on")
    }

    @Test func nothingIsSentWhenOffOrToAReaderOfNoKnownModel() {
        let channel = reader()
        hook(Configuration.Feedback()).tapFinished(ReaderAccess(reader: acr122u, channel: channel, control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        let other = ReaderID.pcsc("Identiv uTrust 3700 F CL Reader 00 00")
        hook(on).tapFinished(ReaderAccess(reader: other, channel: channel, control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        #expect(channel.received.isEmpty)
        // [[feedback.readers]] names the model of a reader whose name says nothing.
        var named = on
        named.readers = [Configuration.ReaderModelOverride(namePrefix: "Identiv", model: .acr122u)]
        hook(named).tapFinished(ReaderAccess(reader: other, channel: channel, control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        #expect(channel.received.count == 1)
        // ... or turns an ACR122U's off.
        var silenced = on
        silenced.readers = [Configuration.ReaderModelOverride(namePrefix: "ACS", model: nil)]
        hook(silenced).tapFinished(ReaderAccess(reader: acr122u, channel: channel, control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        #expect(channel.received.count == 1)
    }

    @Test func aRefusalIsNotedAndALeftCardIsNot() {
        let hook = hook(on)
        hook.tapFinished(ReaderAccess(reader: acr122u, channel: reader(answering: [0x63, 0x00]), control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        #expect(hook.state(of: acr122u) == "refused: the reader answered 6300 to FF 00 40")
        let left = reader()
        left.failOnExchange = (1, CardTransportError(.cardRemoved, "gone"))
        let other = ReaderID.pcsc("ACS ACR122U PICC Interface 01 00")
        hook.tapFinished(ReaderAccess(reader: other, channel: left, control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        #expect(hook.state(of: other) == nil)
        // A reader that takes the next pattern is on again.
        hook.tapFinished(ReaderAccess(reader: acr122u, channel: reader(), control: nil), result: ReadResult(card: card, target: .memory, session: nil))
        #expect(hook.state(of: acr122u) == "on")
    }
}
