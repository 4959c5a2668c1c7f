/// Why bytes are not an ATS (ISO/IEC 14443-4 §5.2).
public enum ATSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No bytes at all: an ATS has at least its TL.
    case empty
    /// TL does not count the bytes given (with a CRC left on, say).
    case lengthMismatch(lengthByte: UInt8, count: Int)
    /// T0 announces more of TA1, TB1, TC1 than there are bytes after it.
    case missingInterfaceBytes(t0: UInt8, available: Int)
    /// More bytes than TL could describe.
    case tooLong(count: Int)

    public var description: String {
        switch self {
        case .empty:
            return "an ATS needs at least its length byte TL, got no bytes"
        case .lengthMismatch(let length, let count):
            return "ATS length byte TL is \(length) but the ATS has \(count) bytes (TL counts itself, not the CRC)"
        case .missingInterfaceBytes(let t0, let available):
            return "ATS T0 \([t0].hexString) announces more interface bytes (TA1/TB1/TC1) than the \(available) that follow it"
        case .tooLong(let count):
            return "an ATS after TL is at most 254 bytes, got \(count)"
        }
    }
}
