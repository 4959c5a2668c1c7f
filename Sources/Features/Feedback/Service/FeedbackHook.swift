public import FeedbackSettings
public import Logging
public import PassTapCore
public import PassTapProtocol
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
    /// The readers whose own detection beep passtapd turned off, and their model: what a reload
    /// that removes `[feedback]` (or `silence_detection_beep`) turns back on, and what a reader
    /// that appears with it removed gets back. Kept in ``silencedFile`` across restarts.
    private let silenced: Mutex<[ReaderID: FeedbackModel]>
    private let silencedFile: SilencedReadersFile

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

    /// A hook reading `[feedback]` from `settings` at each tap; the readers it silenced are kept
    /// in `stateDirectory` (`$STATE_DIRECTORY`), when there is one.
    public init(settings: @escaping @Sendable () -> Configuration.Feedback, logger: Logger, stateDirectory: String? = nil) {
        self.settings = settings
        self.logger = logger
        silencedFile = SilencedReadersFile(stateDirectory: stateDirectory)
        silenced = Mutex(silencedFile.load())
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

    /// The control code the reader's driver takes escape commands on, asked of the driver
    /// (`CM_IOCTL_GET_FEATURE_REQUEST`), never guessed; `nil` when it lists none.
    static func escapeCode(of control: any ReaderControl) throws(CardTransportError) -> UInt32? {
        ReaderFeatures(answer: try control.control(code: ReaderFeatures.requestCode, []))?.escapeCode
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
        guard settings.enabled, settings.silenceDetectionBeep else {
            // Removed since passtapd silenced it (in this run or an earlier one): its beep back.
            if silenced.withLock({ $0[reader.reader] }) != nil { restoreDetectionBeep(reader) }
            return
        }
        guard reader.reader.backend == .pcsc,
            let model = settings.model(ofReaderNamed: reader.reader.name), let control = reader.control
        else { return }
        do {
            guard let escape = try Self.escapeCode(of: control) else { return note(.refused(Self.noEscape), on: reader.reader) }
            switch model {
            case .acr122u:
                _ = try control.control(code: escape, FeedbackCommand.detectionBeepOff)
                remember(reader.reader, as: model)
            case .acr1252u:
                let current = try control.control(code: escape, FeedbackCommand.escapeReadDefaults)
                guard current.count == 6, current[0] == 0xE1 else {
                    return note(.refused("the reader answered \(current.hexString) to E0 00 00 21 00"), on: reader.reader)
                }
                let byte = current[5]
                if byte & FeedbackCommand.detectionBeepBit != 0 {
                    _ = try control.control(code: escape, FeedbackCommand.escapeWriteDefaults(byte & ~FeedbackCommand.detectionBeepBit))
                    remember(reader.reader, as: model)
                }
            }
            note(.playing, on: reader.reader)
        } catch {
            note(.refused("SCardControl failed: \(error.code.rawValue)"), on: reader.reader)
        }
    }

    /// Notes that `reader`'s beep is silenced (a model) or given back (`nil`), in memory and in the
    /// state directory's file.
    private func remember(_ reader: ReaderID, as model: FeedbackModel?) {
        let readers = silenced.withLock { silenced in
            silenced[reader] = model
            return silenced
        }
        if !silencedFile.save(readers) {
            logger.warning(
                "The readers whose beep passtapd turned off could not be written down; after a restart without [feedback] they keep it off",
                metadata: ["file": "\(silencedFile.path ?? "")"])
        }
    }

    /// The readers whose detection beep passtapd silenced (``readerOpened(_:)``).
    public var silencedReaders: [ReaderID] { silenced.withLock { Array($0.keys).sorted() } }

    /// Turns `reader`'s own detection beep back on, as this run found it: the ACR122U's with
    /// `FF 00 52 FF 00`; the ACR1252U's behaviour byte is read and written with bit 3 set, only
    /// when it is clear (it is kept in flash). For a reload that removes `[feedback]` or
    /// `silence_detection_beep`; runs on the reader's thread. Returns whether the reader took it.
    @discardableResult
    public func restoreDetectionBeep(_ reader: ReaderAccess) -> Bool {
        guard let model = silenced.withLock({ $0[reader.reader] }), let control = reader.control else { return false }
        do {
            guard let escape = try Self.escapeCode(of: control) else { return false }
            switch model {
            case .acr122u:
                _ = try control.control(code: escape, FeedbackCommand.detectionBeepOn)
            case .acr1252u:
                let current = try control.control(code: escape, FeedbackCommand.escapeReadDefaults)
                guard current.count == 6, current[0] == 0xE1 else { return false }
                if current[5] & FeedbackCommand.detectionBeepBit == 0 {
                    _ = try control.control(code: escape, FeedbackCommand.escapeWriteDefaults(current[5] | FeedbackCommand.detectionBeepBit))
                }
            }
            remember(reader.reader, as: nil)
            states.withLock { $0[reader.reader] = nil }
            logger.info("Reader's own detection beep turned back on", metadata: ["reader.id": "\(reader.reader)"])
            return true
        } catch {
            logger.warning(
                "Reader's own detection beep could not be turned back on", metadata: ["reader.id": "\(reader.reader)", "error": "\(error.code.rawValue)"])
            return false
        }
    }

    /// Why the POS's verdict was not played (`feedback.signal`'s `feedback_unavailable`, with
    /// ``code`` as `data.code`).
    public enum SignalRefusal: Error, Hashable, Sendable {
        /// `[feedback]` is off.
        case disabled
        /// The reader has no feedback model (not an ACS reader PassTap knows, a libnfc reader, or
        /// `model = "none"`).
        case noModel
        /// The reader or its driver refused the command: why, for a person.
        case refused(String)

        /// `data.code`: `disabled`, `no_model` or `refused`.
        public var code: String {
            switch self {
            case .disabled: return "disabled"
            case .noModel: return "no_model"
            case .refused: return "refused"
            }
        }

        /// The error's message, with what to do.
        public var message: String {
            switch self {
            case .disabled: return "reader feedback is off: set [feedback] enabled = true in passtapd.toml and reload passtapd"
            case .noModel:
                return "this reader has no feedback model PassTap knows (ACS ACR122U, ACR1252U): name it in [[feedback.readers]] if it is one"
            case .refused(let why): return "the reader did not take the pattern: \(why)"
            }
        }
    }

    /// Plays `outcome`'s pattern on the reader now (the POS's verdict, `feedback.signal`), on the
    /// reader's thread: through the card when one is still in the field (`FF 00 40`), else, as
    /// the phone has usually left by then, through the driver's escape code on a direct
    /// connection: the ACR122U takes the same `FF 00 40` as an escape; the ACR1252U its own LED
    /// and buzzer commands (``FeedbackCommand/escapePattern(_:)``), the LED lit until
    /// ``escapeLEDOff(_:)``. Returns how it was sent.
    public func signal(_ outcome: FeedbackOutcome, on reader: ReaderAccess) -> Result<FeedbackSignalResult.Path, SignalRefusal> {
        let settings = settings()
        guard settings.enabled else { return .failure(.disabled) }
        guard reader.reader.backend == .pcsc, let model = settings.model(ofReaderNamed: reader.reader.name) else { return .failure(.noModel) }
        guard let pattern = settings.patterns[outcome] else { return .failure(.disabled) }
        if let channel = reader.channel {
            do {
                let answer = try channel.transmit(FeedbackCommand.ledAndBuzzer(pattern))
                guard FeedbackCommand.tookLEDAndBuzzer(answer) else {
                    return refuse("the reader answered \(answer.hexString) to FF 00 40", on: reader.reader)
                }
                note(.playing, on: reader.reader)
                return .success(.card)
            } catch where error.code == .cardRemoved {
                // The phone left in the meantime: the escape path needs no card.
            } catch {
                return refuse("FF 00 40 failed: \(error.code.rawValue)", on: reader.reader)
            }
        }
        guard let control = reader.control else { return refuse("the reader has no control channel", on: reader.reader) }
        do {
            guard let escape = try Self.escapeCode(of: control) else { return refuse(Self.noEscape, on: reader.reader) }
            switch model {
            case .acr122u:
                let answer = try control.control(code: escape, FeedbackCommand.ledAndBuzzer(pattern))
                guard FeedbackCommand.tookLEDAndBuzzer(answer) else {
                    return refuse("the reader answered \(answer.hexString) to FF 00 40 (escape)", on: reader.reader)
                }
            case .acr1252u:
                for command in FeedbackCommand.escapePattern(pattern) {
                    let answer = try control.control(code: escape, command)
                    guard FeedbackCommand.tookEscape(answer) else {
                        return refuse("the reader answered \(answer.hexString) to \(command.hexString)", on: reader.reader)
                    }
                }
            }
            note(.playing, on: reader.reader)
            return .success(.escape)
        } catch {
            return refuse("SCardControl failed: \(error.code.rawValue)", on: reader.reader)
        }
    }

    /// Turns an ACR1252U's LEDs off after an escape pattern (``signal(_:on:)``): the ACR1252U has
    /// no timed LED command, so its lit time is the caller's wait. Nothing for other readers.
    public func escapeLEDOff(_ reader: ReaderAccess) {
        guard settings().model(ofReaderNamed: reader.reader.name) == .acr1252u, let control = reader.control,
            let escape = try? Self.escapeCode(of: control)
        else { return }
        _ = try? control.control(code: escape, FeedbackCommand.escapeLED(.off))
    }

    private func refuse(_ why: String, on reader: ReaderID) -> Result<FeedbackSignalResult.Path, SignalRefusal> {
        note(.refused(why), on: reader)
        return .failure(.refused(why))
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
