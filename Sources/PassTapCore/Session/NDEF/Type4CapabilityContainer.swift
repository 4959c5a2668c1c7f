import ISO7816

/// A Type 4 tag's capability container, the file `E103` (NFC Forum Type 4 Tag Technical
/// Specification 2.0, "Capability Container"): the first 15 bytes are read.
///
/// | bytes | meaning |
/// |-------|---------|
/// | 0–1 | CCLEN: the container's length (at least `000F`) |
/// | 2 | mapping version: major in the high nibble (`20` is 2.0) |
/// | 3–4 | MLe: the most data bytes one READ BINARY answer may carry (`000F`–`FFFF`) |
/// | 5–6 | MLc: the most data bytes one command may carry (`0001`–`FFFF`) |
/// | 7–14 | the NDEF File Control TLV: `04 06`, file id (2), largest file size (2), read access (`00` granted), write access |
///
/// Version 3.0's Extended NDEF File Control TLV (`06`, 4-byte sizes) is not read.
struct Type4CapabilityContainer: Hashable {
    /// The bytes read of the container.
    static let length = 15
    /// The smallest MLe the specification allows.
    static let minimumMLe = 15
    /// File ids the specification reserves, which an NDEF file cannot have.
    static let reservedFileIDs: Set<UInt16> = [0x0000, 0xE102, 0xE103, 0x3F00, 0x3FFF, 0xFFFF]

    /// The most data bytes one READ BINARY answer may carry.
    let mle: Int
    /// The most data bytes one command may carry.
    let mlc: Int
    /// The NDEF file's id.
    let fileID: UInt16
    /// The NDEF file's largest size, its 2-byte length (NLEN) included.
    let maximumFileBytes: Int

    /// Reads the container, or the problem that stops an NDEF read.
    init(_ bytes: [UInt8]) throws(NDEFTagFailure) {
        guard bytes.count >= Self.length else {
            throw .problem("the capability container file E103 gave \(bytes.count) bytes; at least \(Self.length) are needed")
        }
        func word(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        guard word(0) >= Self.length else { throw .problem("the capability container says it is \(word(0)) bytes long, under 15") }
        let major = bytes[2] >> 4
        guard major == 2 || major == 3 else {
            throw .problem("the capability container's mapping version is \(major).\(bytes[2] & 0x0F); 2.x and 3.x are read")
        }
        guard word(3) >= Self.minimumMLe else { throw .problem("the capability container's MLe is \(word(3)), under the 15 the specification allows") }
        guard word(5) >= 2 else { throw .problem("the capability container's MLc is \(word(5)): a SELECT by file id needs 2") }
        guard bytes[7] == 0x04, bytes[8] == 0x06 else {
            throw .problem("the capability container has no NDEF File Control TLV (04 06) at byte 7, but \([bytes[7], bytes[8]].hexString) (an extended NDEF file, TLV 06, is not read)")
        }
        let fileID = UInt16(word(9))
        guard !Self.reservedFileIDs.contains(fileID) else {
            throw .problem("the NDEF File Control TLV names file \([bytes[9], bytes[10]].hexString), an id the specification reserves")
        }
        guard bytes[13] == 0x00 else { throw .problem("the NDEF file is not readable (read access \([bytes[13]].hexString))") }
        guard word(11) >= 2 else { throw .problem("the NDEF File Control TLV gives the file \(word(11)) bytes, too few for its length") }
        mle = word(3)
        mlc = word(5)
        self.fileID = fileID
        maximumFileBytes = word(11)
    }
}
