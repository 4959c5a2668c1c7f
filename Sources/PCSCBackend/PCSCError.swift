internal import CPCSCLite
import PassTapCore

/// A pcsc-lite call that failed: which function, the raw code, and pcsc-lite's own words.
/// Equal by ``code``.
struct PCSCError: Error, Hashable, CustomStringConvertible {
    /// A pcsc-lite return code (`SCARD_E_*`, `SCARD_W_*`, `SCARD_F_*`), compared by value.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: Int

        init(_ value: LONG) { rawValue = Int(value) }

        /// The corresponding C error is `SCARD_E_CANCELLED`: SCardCancel woke the call.
        static let cancelled = Code(SCARD_E_CANCELLED)
        /// `SCARD_E_TIMEOUT`: the wait's timeout ran out.
        static let timeout = Code(SCARD_E_TIMEOUT)
        /// `SCARD_E_NO_SERVICE`: pcscd is not running.
        static let noService = Code(SCARD_E_NO_SERVICE)
        /// `SCARD_E_SERVICE_STOPPED`: pcscd shut down.
        static let serviceStopped = Code(SCARD_E_SERVICE_STOPPED)
        /// `SCARD_F_COMM_ERROR`: the connection to pcscd broke.
        static let communicationError = Code(SCARD_F_COMM_ERROR)
        /// `SCARD_E_INVALID_HANDLE`: the context or card handle is no longer valid (pcscd restarted).
        static let invalidHandle = Code(SCARD_E_INVALID_HANDLE)
        /// `SCARD_E_NO_READERS_AVAILABLE`: no reader is connected.
        static let noReadersAvailable = Code(SCARD_E_NO_READERS_AVAILABLE)
        /// `SCARD_E_UNKNOWN_READER`: the reader name is not known (any more).
        static let unknownReader = Code(SCARD_E_UNKNOWN_READER)
        /// `SCARD_E_READER_UNAVAILABLE`: the reader was removed or cannot be used.
        static let readerUnavailable = Code(SCARD_E_READER_UNAVAILABLE)
        /// `SCARD_W_REMOVED_CARD`: the card left the field.
        static let removedCard = Code(SCARD_W_REMOVED_CARD)
        /// `SCARD_E_NO_SMARTCARD`: no card in the reader.
        static let noSmartcard = Code(SCARD_E_NO_SMARTCARD)
        /// `SCARD_W_UNRESPONSIVE_CARD`: the card does not answer the reset.
        static let unresponsiveCard = Code(SCARD_W_UNRESPONSIVE_CARD)
        /// `SCARD_W_UNPOWERED_CARD`: the card is not powered.
        static let unpoweredCard = Code(SCARD_W_UNPOWERED_CARD)
        /// `SCARD_W_RESET_CARD`: another client reset the card.
        static let resetCard = Code(SCARD_W_RESET_CARD)
        /// `SCARD_E_SHARING_VIOLATION`: another process holds the reader exclusively.
        static let sharingViolation = Code(SCARD_E_SHARING_VIOLATION)
        /// `SCARD_E_INSUFFICIENT_BUFFER`: the answer did not fit.
        static let insufficientBuffer = Code(SCARD_E_INSUFFICIENT_BUFFER)

        var description: String { "0x" + String(UInt32(truncatingIfNeeded: rawValue), radix: 16, uppercase: true) }
    }

    /// The return code.
    let code: Code
    /// The pcsc-lite function that returned it.
    let function: StaticString
    /// pcsc-lite's text for the code (`pcsc_stringify_error`).
    let message: String

    /// Whether pcscd itself is gone (stopped, killed, restarted): the backend must reconnect.
    var meansServiceGone: Bool {
        [.noService, .serviceStopped, .communicationError, .invalidHandle].contains(code)
    }

    var description: String { "\(function): \(message) (\(code))" }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// What the reader lifecycle does about this failure: pcscd gone ends the reader's thread
    /// (the monitor reconnects, and finds readers anew); another process holding the reader is
    /// waited out; anything else, the reader reported missing included, reopens it with backoff
    /// until the monitor, which watches the reader list, stops it.
    var readerFault: ReaderFault {
        switch code {
        case .noService, .serviceStopped, .communicationError, .invalidHandle:
            return ReaderFault(.gone, "pcscd went away (\(message))")
        case .unknownReader, .readerUnavailable:
            // Retried: pcscd marks a reader unavailable while its driver has trouble (an ACR122U's
            // communication errors); whether it is really gone is the monitor's call.
            return ReaderFault(.failed, "the reader is unavailable (\(message))")
        case .sharingViolation:
            return ReaderFault(.inUse, "another process holds the reader exclusively (\(message))")
        default:
            return ReaderFault(.failed, "\(function) failed: \(message) (\(code))")
        }
    }

    /// The transport error a session or `card.transmit` reports for this failure.
    var transportError: CardTransportError {
        switch code {
        case .removedCard, .noSmartcard, .resetCard, .unpoweredCard, .unresponsiveCard:
            return CardTransportError(.cardRemoved, "the card left the field (\(message))")
        case .readerUnavailable, .unknownReader, .noService, .serviceStopped, .communicationError, .invalidHandle:
            return CardTransportError(.readerUnavailable, "the reader went away (\(message)); passtapd reconnects by itself")
        case .timeout:
            return CardTransportError(.timeout, "the card did not answer in time")
        default:
            return CardTransportError(.transportFailed, "\(function) failed: \(message) (\(code))")
        }
    }
}
