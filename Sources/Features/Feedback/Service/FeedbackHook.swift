public import FeedbackSettings
public import Logging
public import PassTapCore
import ISO7816
import Synchronization

/// The reader feedback's ``PassTapCore/ReaderHook`` (docs/feedback.md): after each tap's result
/// is published, the pattern of its outcome, sent to the reader through the card's connection
/// (`FF 00 40`, `SCardTransmit`).
///
/// Feedback never costs a read: it runs after the result is out, a refusal (`63 00`, any other
/// status, a failed exchange) is noted once in the reader's `hooks` member and the log, and a card
/// that left before the command (`card_removed`) is no refusal.
public final class FeedbackHook: ReaderHook {
    public let name = "feedback"
    private let settings: @Sendable () -> Configuration.Feedback
    private let logger: Logger
    /// What the hook last found on each reader it spoke to.
    private let states = Mutex<[ReaderID: ReaderState]>([:])

    /// Where one reader stands.
    enum ReaderState: Equatable {
        /// The reader took the last pattern.
        case playing
        /// The reader refused the last pattern: why, for a person.
        case refused(String)

        var text: String {
            switch self {
            case .playing: return "on"
            case .refused(let why): return "refused: \(why)"
            }
        }
    }

    /// A hook reading `[feedback]` from `settings` at each tap.
    public init(settings: @escaping @Sendable () -> Configuration.Feedback, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    public func tapFinished(_ reader: ReaderAccess, result: ReadResult) {
        let settings = settings()
        guard settings.enabled, reader.reader.backend == .pcsc, settings.model(ofReaderNamed: reader.reader.name) != nil else { return }
        guard let channel = reader.channel else { return }
        let outcome = FeedbackOutcome(result)
        guard let pattern = settings.patterns[outcome] else { return }
        let command = FeedbackCommand.ledAndBuzzer(pattern)
        do {
            let answer = try channel.transmit(command)
            if FeedbackCommand.tookLEDAndBuzzer(answer) {
                note(.playing, on: reader.reader)
            } else {
                note(.refused("the reader answered \(answer.hexString) to FF 00 40"), on: reader.reader)
            }
        } catch where error.code == .cardRemoved {
            // The phone left before the pattern: nothing the reader refused.
        } catch {
            note(.refused("FF 00 40 failed: \(error.code.rawValue)"), on: reader.reader)
        }
    }

    /// What the log and `readers.list` say when the driver takes no escape commands.
    static let noEscape =
        "the reader's driver takes no escape commands: add 0x0001 to ifdDriverOptions in /etc/libccid_Info.plist and restart pcscd, or install libacsccid1"

    /// With `silence_detection_beep`, turns off the reader's own beep on card detection, through
    /// its control channel (a direct connection) and the escape code its driver lists: the
    /// ACR122U takes `FF 00 52 00 00`; the ACR1252U's default behaviour byte is read, and written
    /// with bit 3 cleared only when it is set (the byte is kept in the reader's flash).
    public func readerOpened(_ reader: ReaderAccess) {
        let settings = settings()
        guard settings.enabled, settings.silenceDetectionBeep, reader.reader.backend == .pcsc,
            let model = settings.model(ofReaderNamed: reader.reader.name), let control = reader.control
        else { return }
        do {
            let features = try control.control(code: ReaderFeatures.requestCode, [])
            guard let escape = ReaderFeatures(answer: features)?.escapeCode else {
                return note(.refused(Self.noEscape), on: reader.reader)
            }
            switch model {
            case .acr122u:
                _ = try control.control(code: escape, FeedbackCommand.detectionBeepOff)
            case .acr1252u:
                let current = try control.control(code: escape, FeedbackCommand.escapeReadDefaults)
                guard current.count == 6, current[0] == 0xE1 else {
                    return note(.refused("the reader answered \(current.hexString) to E0 00 00 21 00"), on: reader.reader)
                }
                let byte = current[5]
                if byte & FeedbackCommand.detectionBeepBit != 0 {
                    _ = try control.control(code: escape, FeedbackCommand.escapeWriteDefaults(byte & ~FeedbackCommand.detectionBeepBit))
                }
            }
            note(.playing, on: reader.reader)
        } catch {
            note(.refused("SCardControl failed: \(error.code.rawValue)"), on: reader.reader)
        }
    }

    public func state(of reader: ReaderID) -> String? {
        states.withLock { $0[reader]?.text }
    }

    /// Records `state`; a new refusal is logged once, not at every tap.
    private func note(_ state: ReaderState, on reader: ReaderID) {
        let previous = states.withLock { states in
            defer { states[reader] = state }
            return states[reader]
        }
        if case .refused(let why) = state, previous != state {
            logger.warning("Reader refused its feedback; taps are read as usual", metadata: ["reader.id": "\(reader)", "feedback.problem": "\(why)"])
        }
    }
}
