internal import CNFC
import PassTapCore

/// A libnfc call that failed: which function, libnfc's error code, and its own words.
struct NFCError: Error, Hashable, CustomStringConvertible {
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

    /// libnfc's own codes (`NFC_E*`); pn53x_usb passes libusb's errno through instead (`-ENODEV`
    /// after an unplug, `-EIO`, whose value is `NFC_EOVFLOW`'s).
    static let libnfcCodes: Set<Code> = [.io, .invalidArgument, .notSupported, .noSuchDevice, .overflow, .timeout, .aborted, .targetReleased, .rfTransmission, .chip, .software, Code(NFC_ENOTIMPL), Code(NFC_EMFCAUTHFAIL)]

    /// Whether the device may be lost: `NFC_EIO` (which libnfc also gives for a garbled frame),
    /// `NFC_ENOTSUCHDEV`, or a code that is not libnfc's. The driver then looks whether the
    /// device is still there (its path, its USB port) before it calls the reader gone.
    var mayMeanDeviceLost: Bool { code == .io || code == .noSuchDevice || !Self.libnfcCodes.contains(code) }

    /// Whether the card did not answer or left the field (as opposed to the device failing).
    var meansRFFailure: Bool { code == .rfTransmission || code == .timeout || code == .targetReleased }

    var description: String { "\(function): \(message) (\(code))" }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// What the reader lifecycle does about it, once the driver knows whether the device is
    /// still there: a lost device ends the reader (`reader.removed`, then started again when it is
    /// back); anything else is retried with backoff.
    func readerFault(deviceLost: Bool) -> ReaderFault {
        ReaderFault(deviceLost ? .gone : .failed, deviceLost ? "the device is gone (libnfc \(function): \(message))" : "libnfc \(function) failed: \(message)")
    }
}
