import ISO7816

/// A Type 2 tag's capability container: the 4 bytes of page 3 (NFC Forum Type 2 Tag Technical
/// Specification, "Capability Container").
///
/// | byte | meaning |
/// |------|---------|
/// | 0 | NDEF magic number, `E1` on an NDEF-formatted tag |
/// | 1 | mapping version: major in the high nibble, minor in the low (`10` is 1.0) |
/// | 2 | data area size divided by 8 (`3E` on an NTAG215: 496 bytes) |
/// | 3 | access: read in the high nibble (`0` granted), write in the low |
struct Type2CapabilityContainer: Hashable {
    /// The magic number of an NDEF-formatted tag.
    static let magic: UInt8 = 0xE1
    /// The highest major mapping version this reader knows; a higher one must not be read.
    static let supportedMajorVersion: UInt8 = 1

    /// The mapping version byte.
    let version: UInt8
    /// The data area's size in bytes (byte 2 times 8).
    let dataAreaBytes: Int

    /// Reads the container, or the problem that stops an NDEF read.
    init(page3 bytes: [UInt8]) throws(NDEFTagFailure) {
        guard bytes.count == 4 else { throw .problem("page 3 came back as \(bytes.count) bytes, not 4") }
        guard bytes[0] == Self.magic else {
            throw .problem("the tag is not NDEF formatted: page 3 starts with \([bytes[0]].hexString), not the capability container's E1")
        }
        guard bytes[1] >> 4 <= Self.supportedMajorVersion, bytes[1] >> 4 > 0 else {
            throw .problem("the capability container's mapping version is \(bytes[1] >> 4).\(bytes[1] & 0x0F); only 1.x is read")
        }
        guard bytes[3] >> 4 == 0 else {
            throw .problem("the capability container does not grant read access (access byte \([bytes[3]].hexString))")
        }
        guard bytes[2] > 0 else { throw .problem("the capability container gives a data area of 0 bytes") }
        version = bytes[1]
        dataAreaBytes = Int(bytes[2]) * 8
    }
}
