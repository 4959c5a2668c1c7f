internal import CNFC
import ISO7816
import Logging
import PassTapCore

/// One libnfc device opened for its reader's thread: runs the polling cycle (ECP, then one select
/// of an ISO 14443-A target), holds a target for its session, then lets it go (S(DESELECT) and a
/// field drop, so a phone shows its check mark) and waits until no target has answered for
/// `rearm_ms` before the next session can start.
///
/// Phones change their UID on every activation, so a target that keeps answering after its
/// session is the same tap, whatever its UID: it gives one `card.inserted`, one `read.result`
/// and one `card.removed`, `rearm_ms` after it left.
final class NFCReaderDriver: ReaderDriver {
    private enum Phase {
        /// Polling for a new card.
        case armed
        /// A target is selected (a session, or a request served after it).
        case held
        /// The tap's target was let go; it last answered at `lastSeen`.
        case rearming(lastSeen: ContinuousClock.Instant)
    }

    private let port: NFCReaderPort
    private let device: NFCDevice
    private let logger: Logger
    private var phase = Phase.armed
    /// The tap's card's UID, to tell another card from it where UIDs are fixed.
    private var tapUID: [UInt8] = []
    /// Whether the tap's card speaks ISO-DEP.
    private var tapIsISODep = false
    private var nextCycle = ContinuousClock.now
    /// Set when an exchange failed for RF reasons (the target did not answer, or left).
    fileprivate var rfFailed = false
    /// Set when the device itself was lost during an exchange: every later call reports it.
    fileprivate var lost: ReaderFault?
    /// Poll cycles that failed in a row (other than by a lost device).
    private var pollFailures = 0
    /// How many failed poll cycles in a row make the reader be reopened.
    static let pollFailuresBeforeFault = 3

    init(port: NFCReaderPort, device: NFCDevice, logger: Logger) {
        self.port = port
        self.device = device
        self.logger = logger
    }

    deinit {
        port.detach()
        device.close()
    }

    private var polling: NFCPolling { port.polling }
    var isStopping: Bool { port.signal.isStopped }
    private var readerID: ReaderID { port.spec.id }

    func waitForCard() -> CardWait {
        if let lost { return .failed(lost) }
        guard sleepUntilNextCycle() else { return .idle }
        let target: NFCDevice.Target?
        do {
            target = try pollCycle()
            pollFailures = 0
        } catch {
            return pollFailed(error).map(CardWait.failed) ?? .idle
        }
        guard let target else { return .idle }
        phase = .held
        rfFailed = false
        tapUID = target.uid
        tapIsISODep = ContactlessATR.isISO14443_4(sak: target.sak)
        return .card(tap(for: target))
    }

    func waitForRemoval() -> PresenceWait {
        if let lost { return .failed(lost) }
        switch phase {
        case .armed:
            return .removed
        case .held:
            // The session and the requests queued with it are done: let the target go.
            release()
            if let lost { return .failed(lost) }
            phase = .rearming(lastSeen: .now)
            return .present
        case .rearming(let lastSeen):
            guard sleepUntilNextCycle() else { return .present }
            do {
                if let target = try pollCycle() {
                    // Reset it, so it answers the next cycle's select again.
                    try device.cycleField(offMilliseconds: polling.fieldOffMilliseconds)
                    pollFailures = 0
                    // Another card (told apart only by fixed UIDs): this tap is over, and the next
                    // wait finds the new card.
                    guard isSameCard(target) else { return .removed }
                    phase = .rearming(lastSeen: .now)
                } else if lastSeen.duration(to: .now) >= polling.rearm {
                    pollFailures = 0
                    return .removed
                }
                pollFailures = 0
            } catch {
                return pollFailed(error).map(PresenceWait.failed) ?? .present
            }
            return .present
        }
    }

    func endTap(stopping: Bool) {
        if case .held = phase { release() }
        phase = .armed
    }

    /// Selects the tap's card again for a request that came after the session let it go: up to
    /// ``reacquireCycles`` cycles (ECP, select). Throws `card_removed` when nothing answers, or
    /// when another card does (told apart only where UIDs are fixed).
    func reacquire() throws(CardTransportError) {
        if let lost { throw CardTransportError(.readerUnavailable, lost.reason) }
        guard case .rearming = phase else { return }
        for _ in 0..<Self.reacquireCycles {
            let target: NFCDevice.Target?
            do {
                target = try pollCycle()
            } catch {
                throw transportError(error)
            }
            guard let target else { continue }
            guard isSameCard(target) else {
                try? device.cycleField(offMilliseconds: polling.fieldOffMilliseconds)
                throw CardTransportError(.cardRemoved, "the card left the field and another one answered")
            }
            phase = .held
            rfFailed = false
            return
        }
        throw CardTransportError(.cardRemoved, "the card left the field")
    }

    /// How many poll cycles a request after the session tries to find its card again.
    static let reacquireCycles = 3

    /// Whether `target` can be the tap's card: its UID is the tap's, or either is random (a
    /// phone's: 4 bytes starting `08`, new on every activation).
    private func isSameCard(_ target: NFCDevice.Target) -> Bool {
        func isRandom(_ uid: [UInt8]) -> Bool { uid.count == 4 && uid.first == 0x08 }
        return target.uid == tapUID || isRandom(target.uid) || isRandom(tapUID)
    }

    /// Sleeps until the next cycle is due; false when woken (a request) or stopped.
    private func sleepUntilNextCycle() -> Bool {
        guard port.signal.pause(until: nextCycle) else { return false }
        let now = ContinuousClock.now
        nextCycle = max(nextCycle + polling.interval, now)
        return true
    }

    /// ECP (when configured), then one select with finite retries.
    private func pollCycle() throws(NFCError) -> NFCDevice.Target? {
        if port.signal.isStopped { throw NFCError(code: .aborted, function: "poll cycle", message: "passtapd is stopping") }
        if let frame = polling.ecpFrame { try sendECP(frame) }
        return try device.selectISO14443A()
    }

    /// Sends the ECP frame in raw framing (easy framing off, CRC on) and ignores the expected
    /// non-answer: no target answers ECP; a phone answers a later select.
    private func sendECP(_ frame: [UInt8]) throws(NFCError) {
        try device.set(NP_EASY_FRAMING, false)
        defer { try? device.set(NP_EASY_FRAMING, true) }
        do {
            _ = try device.transceive(frame, maxAnswer: 64, timeoutMilliseconds: port.ecpTimeoutMilliseconds)
        } catch where !error.mayMeanDeviceLost && error.code != .aborted {
            // The chip's timeout (or an RF error): what ECP always gets.
        }
    }

    /// S(DESELECT) (not after an RF failure in VAS-and-payment modes), then a field drop.
    private func release() {
        // A target that left right after its session (`nfc_initiator_target_is_present`: an
        // R(NAK) for ISO-DEP) has nothing to deselect, and its read ended on the radio.
        // Only ISO-DEP: a memory tag's check would be a READ command, which some tags refuse.
        if !rfFailed, tapIsISODep, (try? device.targetIsPresent()) == false { rfFailed = true }
        do {
            if !rfFailed || polling.deselectsAfterRFFailure {
                do {
                    try device.deselect()
                } catch where !error.mayMeanDeviceLost {
                    logger.debug("DESELECT failed", metadata: ["reader.id": "\(readerID)", "error": "\(error)"])
                }
            }
            try device.cycleField(offMilliseconds: polling.fieldOffMilliseconds)
        } catch {
            _ = fault(error)
        }
        phase = .armed
    }

    private func tap(for target: NFCDevice.Target) -> Tap {
        let atr = ContactlessATR.iso14443A(sak: target.sak, atsAfterLength: target.atsAfterLength)
        let isoDep = ContactlessATR.isISO14443_4(sak: target.sak)
        let ats = isoDep ? HexBytes([UInt8(truncatingIfNeeded: target.atsAfterLength.count + 1)] + target.atsAfterLength) : nil
        let card = CardInfo(
            atr: HexBytes(atr), uid: HexBytes(target.uid), atqa: HexBytes(target.atqa), sak: HexBytes([target.sak]), ats: ats)
        // A memory card's pages are read only for a Type 2 tag (never a MIFARE Classic's).
        let memory = ContactlessATR.isType2Tag(atqa: target.atqa, sak: target.sak) ? NFCTagMemory(driver: self, device: device, polling: polling) : nil
        return Tap(
            card: card, target: isoDep ? .isoDep : .memory, channel: isoDep ? NFCChannel(driver: self, device: device, polling: polling) : nil,
            memory: memory)
    }

    /// A poll cycle that failed: a lost device ends the reader at once; a stop's abort is not a
    /// failure; anything else (a chip timeout, a garbled frame on the UART) must happen
    /// ``pollFailuresBeforeFault`` times in a row before the reader is reopened, so one glitch
    /// does not flap the reader's state.
    private func pollFailed(_ error: NFCError) -> ReaderFault? {
        if error.code == .aborted { return nil }
        if error.mayMeanDeviceLost, !port.deviceIsThere { return fault(error) }
        pollFailures += 1
        logger.debug("Poll cycle failed", metadata: ["reader.id": "\(readerID)", "error": "\(error)", "in_a_row": "\(pollFailures)"])
        return pollFailures >= Self.pollFailuresBeforeFault ? fault(error) : nil
    }

    /// The fault for the lifecycle: the device is lost when the error may mean so and the device
    /// is not there any more (recorded: every later call reports it).
    private func fault(_ error: NFCError) -> ReaderFault {
        let isLost = error.mayMeanDeviceLost && !port.deviceIsThere
        let fault = error.readerFault(deviceLost: isLost)
        if isLost { lost = fault }
        return fault
    }

    func transportError(_ error: NFCError) -> CardTransportError {
        if error.code == .aborted, port.signal.isStopped {
            return CardTransportError(.readerUnavailable, "passtapd is stopping")
        }
        if error.mayMeanDeviceLost, !port.deviceIsThere {
            lost = error.readerFault(deviceLost: true)
            return CardTransportError(.readerUnavailable, "the reader went away (\(error.message)); passtapd reopens it when it is back")
        }
        switch error.code {
        case .timeout:
            rfFailed = true
            return CardTransportError(.timeout, "the card did not answer in time")
        case .rfTransmission, .targetReleased:
            rfFailed = true
            return CardTransportError(.cardRemoved, "the card left the field (\(error.message))")
        case .overflow:
            return CardTransportError(.responseTooLong, "the answer did not fit the reader's frame")
        default:
            return CardTransportError(.transportFailed, "\(error.function) failed: \(error.message) (\(error.code))")
        }
    }
}

/// The exchange with an ISO-DEP target through libnfc (InDataExchange: the PN53x does the
/// ISO-DEP block chaining); used only by the reader's thread.
final class NFCChannel: CardChannel {
    /// A short APDU both ways: InDataExchange carries at most 262 bytes, and an answer longer
    /// than 263 bytes cannot be received (`NFC_ECHIP`).
    let capacity = ChannelCapacity(maxCommandBytes: 261, maxAnswerBytes: 258)
    private weak var driver: NFCReaderDriver?
    private let device: NFCDevice
    private let polling: NFCPolling

    fileprivate init(driver: NFCReaderDriver, device: NFCDevice, polling: NFCPolling) {
        self.driver = driver
        self.device = device
        self.polling = polling
    }

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard let driver else { throw CardTransportError(.readerUnavailable, "the reader was closed") }
        if driver.isStopping { throw CardTransportError(.readerUnavailable, "passtapd is stopping") }
        try driver.reacquire()
        do {
            // One byte more than the capacity, so a longer answer shows as too long.
            return try device.transceive(
                command, maxAnswer: capacity.maxAnswerBytes + 1, timeoutMilliseconds: polling.apduTimeoutMilliseconds, abortable: true)
        } catch {
            throw driver.transportError(error)
        }
    }
}
