/// The flag bits of an NDEF record's first byte (NFC Forum NDEF 1.0 §3.2, figure 4):
///
/// ```
///   bit  7    6    5    4    3    2 1 0
///       MB   ME   CF   SR   IL    TNF
/// ```
///
/// then TYPE LENGTH (1 byte), PAYLOAD LENGTH (1 byte when SR, else 4 bytes big-endian), ID LENGTH
/// (1 byte, only when IL), TYPE, ID, PAYLOAD.
enum NDEFHeader {
    /// MB: the first record of the message.
    static let messageBegin: UInt8 = 0x80
    /// ME: the last record of the message.
    static let messageEnd: UInt8 = 0x40
    /// CF: a chunk follows (this record is the first or a middle chunk).
    static let chunkFlag: UInt8 = 0x20
    /// SR: a short record, with a 1-byte payload length.
    static let shortRecord: UInt8 = 0x10
    /// IL: an ID LENGTH byte and an ID are present.
    static let idLength: UInt8 = 0x08
    /// The TNF bits.
    static let tnfMask: UInt8 = 0x07
}
