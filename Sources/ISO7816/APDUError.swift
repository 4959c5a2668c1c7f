/// Why bytes are not a valid command or response APDU, or an AID.
public enum APDUError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A command needs at least CLA INS P1 P2.
    case commandTooShort(length: Int)
    /// The length bytes after the header do not match the bytes that follow.
    case inconsistentLength(String)
    /// Longer than pcsc-lite can carry (`MAX_BUFFER_SIZE_EXTENDED`, 65 548 bytes).
    case tooLong(length: Int)
    /// A response needs at least the two status bytes.
    case responseTooShort(length: Int)
    /// An AID must be 5 to 16 bytes (ISO/IEC 7816-4 §8.2.1.2).
    case invalidAIDLength(Int)
    /// The text given for bytes (an AID's, say) is not hex.
    case notHex(HexError)

    public var description: String {
        switch self {
        case .commandTooShort(let length): return "a command APDU needs at least 4 bytes (CLA INS P1 P2), got \(length)"
        case .inconsistentLength(let detail): return "APDU length bytes do not match its size: \(detail)"
        case .tooLong(let length): return "APDU of \(length) bytes is over the 65548-byte limit"
        case .responseTooShort(let length): return "a response APDU needs at least the 2 status bytes, got \(length)"
        case .invalidAIDLength(let length): return "an AID is 5 to 16 bytes, got \(length)"
        case .notHex(let error): return "not hex: \(error.description)"
        }
    }
}
