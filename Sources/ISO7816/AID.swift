/// An application identifier: 5 to 16 bytes, RID (5) then PIX (ISO/IEC 7816-4 §8.2.1.2, 7816-5).
public struct AID: Hashable, Sendable, CustomStringConvertible {
    /// The AID's bytes.
    public let bytes: [UInt8]

    /// Wraps bytes, checking the length.
    public init(bytes: [UInt8]) throws(APDUError) {
        guard (5...16).contains(bytes.count) else { throw .invalidAIDLength(bytes.count) }
        self.bytes = bytes
    }

    /// Parses hex in any case.
    public init(hex: String) throws(APDUError) {
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](hex: hex)
        } catch {
            throw .notHex(error)
        }
        try self.init(bytes: bytes)
    }

    /// Upper-case hex.
    public var hex: String { bytes.hexString }

    public var description: String { hex }
}
