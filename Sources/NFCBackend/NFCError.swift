internal import CNFC
import PassTapCore

/// A libnfc call that failed: which function, libnfc's error code, and its own words.
struct NFCError: Error, CustomStringConvertible {
    /// A libnfc error code (`NFC_E*`), compared by value.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: Int32

        init(_ value: Int32) { rawValue = value }

        /// `NFC_EIO`: input/output error; after an unplug every call fails with it at once.
        static let io = Code(NFC_EIO)
        /// `NFC_EINVARG`: invalid argument.
        static let invalidArgument = Code(NFC_EINVARG)
        /// `NFC_EDEVNOTSUPP`: the device does not support the operation.
        static let notSupported = Code(NFC_EDEVNOTSUPP)
        /// `NFC_ENOTSUCHDEV`: no such device.
        static let noSuchDevice = Code(NFC_ENOTSUCHDEV)
        /// `NFC_EOVFLOW`: the answer did not fit the buffer.
        static let overflow = Code(NFC_EOVFLOW)
        /// `NFC_ETIMEOUT`: the device did not answer in time.
        static let timeout = Code(NFC_ETIMEOUT)
        /// `NFC_EOPABORTED`: `nfc_abort_command` ended the call.
        static let aborted = Code(NFC_EOPABORTED)
        /// `NFC_ETGRELEASED`: the target was released.
        static let targetReleased = Code(NFC_ETGRELEASED)
        /// `NFC_ERFTRANS`: an RF transmission error (the target did not answer, or left).
        static let rfTransmission = Code(NFC_ERFTRANS)
        /// `NFC_ECHIP`: the chip reported an error.
        static let chip = Code(NFC_ECHIP)
        /// `NFC_ESOFT`: a software error inside libnfc.
        static let software = Code(NFC_ESOFT)
        /// Not libnfc's: `nfc_open` returned NULL (libnfc gives no reason).
        static let openFailed = Code(-1000)

        var description: String { "\(rawValue)" }
    }

    /// The error code.
    let code: Code
    /// The libnfc function that returned it.
    let function: StaticString
    /// libnfc's text (`nfc_strerror`), or ours when libnfc has none.
    let message: String

    /// Whether the device itself is lost (unplugged, serial port gone): the reader is closed and
    /// reopened once it is back.
    var meansDeviceLost: Bool { code == .io || code == .noSuchDevice }

    /// Whether the card did not answer or left the field (as opposed to the device failing).
    var meansRFFailure: Bool { code == .rfTransmission || code == .timeout || code == .targetReleased }

    var description: String { "\(function): \(message) (\(code))" }

    /// What the reader lifecycle does about it: a lost device ends the reader (`reader.removed`,
    /// then reopened when it is back); anything else is retried with backoff.
    var readerFault: ReaderFault {
        ReaderFault(meansDeviceLost ? .gone : .failed, "libnfc \(function) failed: \(message)")
    }
}
