/// Bounds on what ``NDEFMessage/init(parsing:limits:)`` and ``NDEFRecord/decoded(limits:)`` accept,
/// so that a hostile tag or phone costs little.
///
/// Lengths inside the message are checked against the bytes that are really there before any of
/// them is used, so the size bound also bounds every allocation.
public struct NDEFLimits: Sendable, Hashable {
    /// Most bytes in one message (the input of one parse). A nested message is smaller than the
    /// record that carries it, so this bounds it too.
    public var maxMessageBytes: Int
    /// Most records (counting every chunk of a chunked record) in one message.
    public var maxRecords: Int
    /// Most message levels: 1 is a plain message; a Smart Poster (or a Smart Tap record) whose
    /// payload is itself a message needs 2, and each further nesting one more.
    public var maxDepth: Int

    /// Creates limits.
    public init(maxMessageBytes: Int, maxRecords: Int, maxDepth: Int) {
        self.maxMessageBytes = maxMessageBytes
        self.maxRecords = maxRecords
        self.maxDepth = maxDepth
    }

    /// 64 KiB, 256 records, 8 levels.
    ///
    /// 64 KiB covers the largest Type 4 NDEF file with a 2-byte length (NLEN up to FFFE, Type 4
    /// Tag 2.0 §5.1.2) and every Type 2 tag (an NTAG216 has 888 bytes of user memory). A Smart Tap
    /// answer nests about five levels (service response, record bundle, service object, its
    /// fields); 8 leaves room without letting a chain of nested records run deep.
    public static let standard = NDEFLimits(maxMessageBytes: 65_536, maxRecords: 256, maxDepth: 8)

    /// The limits for a message nested one level below a message parsed with these limits: one
    /// level less of depth, the rest unchanged. ``NDEFRecord/nestedMessage(limits:)`` applies it;
    /// a caller descending through nested records passes the result down.
    public var nested: NDEFLimits {
        NDEFLimits(maxMessageBytes: maxMessageBytes, maxRecords: maxRecords, maxDepth: maxDepth - 1)
    }
}
