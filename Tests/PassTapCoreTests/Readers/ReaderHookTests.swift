import ISO7816
import Logging
import PassTapConfig
import PassTapCore
import PassTapTestSupport
import Synchronization
import Testing

/// The reader-side hooks (docs/architecture.md, "Reader hooks") with a fake reader: they run once
/// the tap's `read.result` is published, on the reader's connection (its card channel and its
/// control channel), in order, never for an abandoned tap, and say their part in `readers`.
@Suite(.timeLimit(.minutes(1))) struct ReaderHookTests {
    let reader = ReaderID.pcsc("Test Reader 00 00")
    /// An ACR122U's LED and buzzer command (a pseudo-APDU to the reader, through SCardTransmit).
    static let ledCommand: [UInt8] = [0xFF, 0x00, 0x40, 0x0F, 0x04, 0x01, 0x01, 0x01, 0x01]

    /// A reader's control channel that answers every escape with `90 00` and records them.
    final class FakeControl: ReaderControl {
        private(set) var sent: [(code: UInt32, command: [UInt8])] = []
        func control(code: UInt32, _ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
            sent.append((code, command))
            return [0x90, 0x00]
        }
    }

    /// What one hook saw at one tap.
    struct Call: Sendable, Equatable {
        var reader: ReaderID
        var target: TargetKind
        /// The events published when the hook ran.
        var publishedBefore: [EventKind]
        var transmitAnswer: [UInt8]?
        var controlAnswer: [UInt8]?
    }

    /// The names of the hooks that ran, in order, across hooks.
    final class RunLog: Sendable {
        let names = Mutex<[String]>([])
        var all: [String] { names.withLock { $0 } }
    }

    /// A hook that sends the LED command through the card channel and an escape through the
    /// control channel, and notes what it saw; `log` is shared by hooks to check their order.
    final class RecordingHook: ReaderHook {
        let name: String
        let events: EventRecorder
        let log: RunLog
        let calls = Mutex<[Call]>([])

        init(name: String, events: EventRecorder, log: RunLog = RunLog()) {
            self.name = name
            self.events = events
            self.log = log
        }

        /// Every call so far.
        var recorded: [Call] { calls.withLock { $0 } }

        func tapFinished(_ access: ReaderAccess, result: ReadResult) {
            let transmitted = try? access.channel?.transmit(ReaderHookTests.ledCommand)
            let controlled = try? access.control?.control(code: 0x4200_0001, [0xE0, 0x00, 0x00, 0x28, 0x01, 0x0F])
            let call = Call(
                reader: access.reader, target: result.target, publishedBefore: events.kinds, transmitAnswer: transmitted,
                controlAnswer: controlled)
            calls.withLock { $0.append(call) }
            log.names.withLock { $0.append(name) }
        }

        func state(of reader: ReaderID) -> String? {
            calls.withLock { calls in calls.contains { $0.reader == reader } ? "signalled" : nil }
        }

        func problems() -> [String] { ["\(name) is a test"] }
    }

    private func coordinator(_ hooks: [any ReaderHook], events: EventRecorder) throws -> TapCoordinator {
        var configuration = Configuration()
        configuration.aids = [try AID(hex: "A0000000041010")]
        var logger = Logger(label: "passtap.test.hooks")
        logger.logLevel = .critical
        return TapCoordinator(configuration: configuration, features: .standard, logger: logger, events: events.sink, hooks: ReaderHooks(hooks))
    }

    @Test func aHookRunsAfterTheResultIsPublishedOnTheReadersConnection() throws {
        let events = EventRecorder()
        let hook = RecordingHook(name: "feedback", events: events)
        let card = ScriptedCard()
        card.onCommand = { $0 == Self.ledCommand ? [0x90, 0x00] : nil }
        let control = FakeControl()
        try coordinator([hook], events: events).read(
            reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: card, control: control))
        let calls = hook.recorded
        #expect(calls == [Call(reader: reader, target: .isoDep, publishedBefore: [.readResult], transmitAnswer: [0x90, 0x00], controlAnswer: [0x90, 0x00])])
        // The hook's command went once, last, after the session's exchanges.
        #expect(card.received.last == Self.ledCommand)
        #expect(card.received.filter { $0 == Self.ledCommand }.count == 1)
        #expect(control.sent.map(\.code) == [0x4200_0001])
    }

    @Test func aMemoryCardsTapRunsTheHooksToo() throws {
        let events = EventRecorder()
        let hook = RecordingHook(name: "feedback", events: events)
        try coordinator([hook], events: events).read(
            reader: reader, tap: Tap(card: CardInfo(atr: "3B8F8001804F0CA0000003060300030000000068", uid: "04112233445566"), target: .memory, channel: nil))
        let targets: [TargetKind] = hook.recorded.map(\.target)
        #expect(targets == [.memory])
        #expect(hook.recorded.first?.publishedBefore == [.readResult])
    }

    @Test func hooksRunInTheirOrderAndNotForAnAbandonedTap() throws {
        let events = EventRecorder()
        let log = RunLog()
        let first = RecordingHook(name: "first", events: events, log: log)
        let second = RecordingHook(name: "second", events: events, log: log)
        let coordinator = try coordinator([first, second], events: events)
        coordinator.read(reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: ScriptedCard()))
        #expect(log.all == ["first", "second"])
        var abandoned = Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: ScriptedCard())
        abandoned.isAbandoned = { true }
        coordinator.read(reader: reader, tap: abandoned)
        #expect(log.all == ["first", "second"])
    }

    @Test func hooksSayTheirPartOfEachReaderAndTheirProblems() throws {
        let events = EventRecorder()
        let hook = RecordingHook(name: "feedback", events: events)
        let hooks = ReaderHooks([hook])
        let other = ReaderID(backend: .nfc, name: "pn532_uart:/dev/ttyS0")
        let readers = [
            ReaderInfo(id: reader, name: "Test Reader 00 00", backend: "pcsc", state: .present),
            ReaderInfo(id: other, name: "PN532", backend: "nfc", state: .empty),
        ]
        // Before any tap the hook has nothing to say: no reader gets the member.
        let before: [[String: String]?] = hooks.describing(readers).map(\.hooks)
        #expect(before == [nil, nil])
        try coordinator([hook], events: events).read(
            reader: reader, tap: Tap(card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: .isoDep, channel: ScriptedCard()))
        let after: [[String: String]?] = hooks.describing(readers).map(\.hooks)
        #expect(after == [["feedback": "signalled"], nil])
        #expect(hooks.problems() == ["feedback is a test"])
        // Without hooks the readers are left as they are.
        #expect(ReaderHooks().describing(readers) == readers)
    }
}
