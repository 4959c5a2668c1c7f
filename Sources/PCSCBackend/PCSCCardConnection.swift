internal import CPCSCLite
import ISO7816
import Logging
import PassTapCore

/// A connected card (`SCARDHANDLE`): the ``CardChannel`` sessions and `card.transmit` use.
/// Owned and used by its reader's thread only.
final class PCSCCardConnection: CardChannel {
    private let handle: SCARDHANDLE
    private let activeProtocol: DWORD
    private let context: PCSCContext
    private let readerName: String
    private let logger: Logger
    /// pcsc-lite's MAX_BUFFER_SIZE_EXTENDED (4 + 3 + 65536 + 3 + 2), a macro Swift cannot import.
    private static let maximumAnswerBytes = 65_548
    /// Large enough for any extended-length answer pcsc-lite can carry.
    private var receiveBuffer = [UInt8](repeating: 0, count: PCSCCardConnection.maximumAnswerBytes)

    /// Connects to the card in `readerName`, T=0 or T=1, shared: other PC/SC clients (pcsc_scan,
    /// a vendor tool) can still watch the reader while PassTap holds the card.
    init(context: PCSCContext, readerName: String, logger: Logger) throws(PCSCError) {
        var handle: SCARDHANDLE = 0
        var active: DWORD = 0
        try pcsc("SCardConnect") {
            SCardConnect(
                context.handle, readerName, DWORD(SCARD_SHARE_SHARED),
                DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &handle, &active)
        }
        self.handle = handle
        self.activeProtocol = active
        self.context = context
        self.readerName = readerName
        self.logger = logger
    }

    /// Ends the connection; `reset` powers the card down and up (releasing a phone's session).
    func disconnect(reset: Bool) {
        let disposition = DWORD(reset ? SCARD_RESET_CARD : SCARD_LEAVE_CARD)
        if let error = pcscRelease("SCardDisconnect", { SCardDisconnect(handle, disposition) }) {
            logger.debug("Disconnect failed (card or pcscd gone?)", metadata: ["reader.id": "\(ReaderID.pcsc(readerName))", "error": "\(error)"])
        }
    }

    /// The card's ATR, from `SCardStatus`.
    func atr() throws(PCSCError) -> [UInt8] {
        var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
        var atrLength = DWORD(MAX_ATR_SIZE)
        var state: DWORD = 0
        var proto: DWORD = 0
        var nameLength: DWORD = 0
        try pcsc("SCardStatus") { SCardStatus(handle, nil, &nameLength, &state, &proto, &atr, &atrLength) }
        return Array(atr.prefix(Int(atrLength)))
    }

    var capacity: ChannelCapacity { .extendedAPDU }

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        let answer: [UInt8]
        do {
            answer = try exchange(command)
        } catch {
            throw error.transportError
        }
        // A card that leaves mid-exchange can give an empty answer with SCARD_S_SUCCESS (seen
        // with vpcd): before blaming the card, see whether it is leaving the field.
        if answer.count < 2, cardLeaves(within: Self.removalGraceMilliseconds) {
            throw CardTransportError(.cardRemoved, "the card left the field during the exchange")
        }
        return answer
    }

    /// How long to watch for a removal after an empty answer (pcscd polls presence at about
    /// this period).
    static let removalGraceMilliseconds: UInt32 = 600

    /// Whether the reader reports the card gone within `milliseconds`. A wait that a wake (an
    /// `SCardCancel` for a queued request) ends early is waited again for the time left: a
    /// cancel is not an answer.
    private func cardLeaves(within milliseconds: UInt32) -> Bool {
        guard let now = waitIgnoringWakes(ReaderWatch(name: readerName, state: ReaderWatch.unaware), milliseconds: 0) else {
            return true
        }
        if !now.hasCard { return true }
        guard let later = waitIgnoringWakes(ReaderWatch(name: readerName, state: now.known), milliseconds: milliseconds) else {
            return false
        }
        return !later.hasCard
    }

    /// The reader's state once it differs from `known` or `milliseconds` pass; `nil` on a timeout
    /// or an error.
    private func waitIgnoringWakes(_ known: ReaderWatch, milliseconds: UInt32) -> ReaderWatch? {
        let deadline = ContinuousClock.now + .milliseconds(Int(milliseconds))
        // A few cancels in a row are wakes for queued requests; more would be a stop.
        for _ in 0..<4 {
            let left = max(0, (deadline - ContinuousClock.now) / .milliseconds(1))
            do {
                return try context.waitForChange([known], timeoutMilliseconds: UInt32(left)).first
            } catch where error.code == .cancelled {
                continue
            } catch {
                return nil
            }
        }
        return nil
    }

    /// One `SCardTransmit`, with the PCI of the active protocol.
    func exchange(_ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        var length = DWORD(receiveBuffer.count)
        let pci = activeProtocol == DWORD(SCARD_PROTOCOL_T0) ? g_rgSCardT0Pci : g_rgSCardT1Pci
        try withUnsafePointer(to: pci) { (request) throws(PCSCError) in
            try pcsc("SCardTransmit") {
                SCardTransmit(handle, request, command, DWORD(command.count), nil, &receiveBuffer, &length)
            }
        }
        TapTrace.mark(.answerReceived)
        let answer = Array(receiveBuffer.prefix(Int(length)))
        // Header, lengths and status word only: data can hold card numbers (a raw READ RECORD).
        logger.trace(
            "APDU exchanged",
            metadata: [
                "reader.id": "\(ReaderID.pcsc(readerName))",
                "apdu.header": "\(Array(command.prefix(4)).hexString)",
                "apdu.command_bytes": "\(command.count)",
                "apdu.response_bytes": "\(answer.count)",
                "apdu.sw": "\(Array(answer.suffix(2)).hexString)",
            ])
        return answer
    }
}

extension PCSCCardConnection: ReaderControl {
    /// One `SCardControl` on this connection's handle: a command to the reader (its driver must
    /// allow escape commands for vendor codes, as the CCID driver's `ifdDriverOptions` says).
    func control(code: UInt32, _ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        try pcscControl(handle, code: code, command)
    }
}

@available(*, unavailable)
extension PCSCCardConnection: Sendable {}
