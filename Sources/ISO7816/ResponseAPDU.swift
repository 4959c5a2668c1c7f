/// A response APDU: the response data, then the two status bytes.
public struct ResponseAPDU: Hashable, Sendable, CustomStringConvertible {
    /// The response data (may be empty).
    public var data: [UInt8]
    /// SW1 SW2.
    public var statusWord: StatusWord

    /// Creates a response.
    public init(data: [UInt8], statusWord: StatusWord) {
        self.data = data
        self.statusWord = statusWord
    }

    /// Splits a card's answer into data and status word.
    public init(bytes: [UInt8]) throws(APDUError) {
        guard bytes.count >= 2 else { throw .responseTooShort(length: bytes.count) }
        data = Array(bytes.dropLast(2))
        statusWord = StatusWord(sw1: bytes[bytes.count - 2], sw2: bytes[bytes.count - 1])
    }

    /// Data followed by SW1 SW2.
    public var bytes: [UInt8] { data + [statusWord.sw1, statusWord.sw2] }

    public var description: String { bytes.hexString }
}
