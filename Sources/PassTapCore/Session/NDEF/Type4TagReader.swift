import ISO7816

/// Reads the NDEF message of a Type 4 tag over APDUs (NFC Forum Type 4 Tag Technical
/// Specification 2.0, "NDEF Detection Procedure" and "NDEF Read Procedure"):
///
/// 1. SELECT the NDEF Tag Application by name: `00 A4 04 00 07 D2760000850101 00`;
/// 2. SELECT the capability container by file id: `00 A4 00 0C 02 E103`;
/// 3. READ BINARY its first 15 bytes: `00 B0 0000 0F` (MLe, MLc, the NDEF file's id and size);
/// 4. SELECT the NDEF file by the id it gives: `00 A4 00 0C 02 <id>`;
/// 5. READ BINARY the 2-byte NLEN, then the message from offset 2 in chunks of at most MLe
///    (and at most ``maximumChunk``, and what the reader carries).
///
/// A message longer than the file's size, than the codec's bound, or than READ BINARY's 15-bit
/// offset reaches is a problem, found before it is read; a chunk that comes back empty or longer
/// than asked is a problem too, so the reads are bounded by NLEN / the chunk size.
struct Type4TagReader {
    /// The NDEF Tag Application, version 2.0 and later.
    static let applicationAID = try! AID(bytes: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01])
    /// The capability container's file id.
    static let capabilityContainerFileID: UInt16 = 0xE103
    /// The most data bytes asked per READ BINARY, however large MLe: a short Le that every
    /// reader and tag takes as it is (`00` would mean 256).
    static let maximumChunk = 255
    /// READ BINARY (`B0`) with a 15-bit offset reaches bytes 0 to 7FFF.
    static let maximumOffset = 0x7FFF

    /// Sends one command (with the session's chaining and budget).
    let exchange: (CommandAPDU) throws(CardTransportError) -> ResponseAPDU
    /// The largest answer, status word included, one exchange carries.
    let maximumAnswerBytes: Int
    /// The longest message read (the codec's bound).
    let maximumMessageBytes: Int

    /// How many commands were sent.
    private(set) var commands = 0

    init(
        maximumAnswerBytes: Int, maximumMessageBytes: Int,
        exchange: @escaping (CommandAPDU) throws(CardTransportError) -> ResponseAPDU
    ) {
        self.exchange = exchange
        self.maximumAnswerBytes = maximumAnswerBytes
        self.maximumMessageBytes = maximumMessageBytes
    }

    /// The bytes of the tag's NDEF message.
    mutating func readMessage() throws(NDEFTagFailure) -> [UInt8] {
        let application = try send(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: Self.applicationAID.bytes, le: 256))
        guard application.statusWord.isSuccess else {
            throw .problem("no NDEF application: SELECT D2760000850101 answered \(application.statusWord.hex)")
        }
        try selectFile(Self.capabilityContainerFileID, what: "the capability container E103")
        let ccAnswer = try send(Self.readBinaryCommand(offset: 0, length: Type4CapabilityContainer.length))
        guard ccAnswer.statusWord.isSuccess else {
            throw .problem("READ BINARY of the capability container answered \(ccAnswer.statusWord.hex)")
        }
        let container = try Type4CapabilityContainer(ccAnswer.data)
        try selectFile(container.fileID, what: "the NDEF file")
        let chunk = min(container.mle, Self.maximumChunk, maximumAnswerBytes - 2)
        guard chunk >= 2 else { throw .problem("the reader carries answers of \(maximumAnswerBytes) bytes, too few to read the NDEF file") }
        let lengthBytes = try readBinary(offset: 0, length: 2)
        let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
        guard length > 0 else { throw .problem("the NDEF file is empty (NLEN 0): the tag holds no message") }
        guard length <= container.maximumFileBytes - 2 else {
            throw .problem("NLEN says \(length) bytes, past the NDEF file's \(container.maximumFileBytes) (from the capability container)")
        }
        guard length <= maximumMessageBytes, length + 1 <= Self.maximumOffset else {
            throw .problem("NLEN says \(length) bytes, over the \(min(maximumMessageBytes, Self.maximumOffset - 1)) read")
        }
        var message: [UInt8] = []
        message.reserveCapacity(length)
        while message.count < length {
            let part = try readBinary(offset: 2 + message.count, length: min(chunk, length - message.count))
            message += part
        }
        return message
    }

    /// READ BINARY of exactly `length` bytes (1 to 255) at `offset`.
    private mutating func readBinary(offset: Int, length: Int) throws(NDEFTagFailure) -> [UInt8] {
        let answer = try send(Self.readBinaryCommand(offset: offset, length: length))
        guard answer.statusWord.isSuccess else {
            throw .problem("READ BINARY of the NDEF file at offset \(offset) answered \(answer.statusWord.hex)")
        }
        guard answer.data.count == length else {
            throw .problem("READ BINARY of \(length) bytes at offset \(offset) of the NDEF file returned \(answer.data.count)")
        }
        return answer.data
    }

    /// SELECT by file id, first or only occurrence, no answer data: `00 A4 00 0C 02 <id>`.
    private mutating func selectFile(_ id: UInt16, what: String) throws(NDEFTagFailure) {
        let answer = try send(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x00, p2: 0x0C, data: [UInt8(id >> 8), UInt8(id & 0xFF)]))
        guard answer.statusWord.isSuccess else {
            throw .problem("SELECT of \(what) (\([UInt8(id >> 8), UInt8(id & 0xFF)].hexString)) answered \(answer.statusWord.hex)")
        }
    }

    /// `00 B0 <offset> <length>`.
    static func readBinaryCommand(offset: Int, length: Int) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), le: length)
    }

    private mutating func send(_ command: CommandAPDU) throws(NDEFTagFailure) -> ResponseAPDU {
        commands += 1
        do {
            return try exchange(command)
        } catch {
            throw .transport(error)
        }
    }
}
