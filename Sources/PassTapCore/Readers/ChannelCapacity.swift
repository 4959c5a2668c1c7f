/// What one exchange over a card channel can carry: the largest command and the largest answer
/// (status word included), in bytes.
///
/// A PC/SC reader carries extended APDUs (pcsc-lite's `MAX_BUFFER_SIZE_EXTENDED`, 65 548 bytes);
/// a PN532 frame holds at most 263 bytes of answer. The session's transmitter is capped by it.
public struct ChannelCapacity: Hashable, Sendable {
    /// The most bytes one command may have.
    public var maxCommandBytes: Int
    /// The most bytes one answer may have, status word included.
    public var maxAnswerBytes: Int

    /// Creates a capacity.
    public init(maxCommandBytes: Int, maxAnswerBytes: Int) {
        self.maxCommandBytes = maxCommandBytes
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// pcsc-lite's `MAX_BUFFER_SIZE_EXTENDED` (4 + 3 + 65 536 + 3 + 2) both ways.
    public static let extendedAPDU = ChannelCapacity(maxCommandBytes: 65_548, maxAnswerBytes: 65_548)
}
